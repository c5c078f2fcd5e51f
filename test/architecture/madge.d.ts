/** The part of madge's API the layer test uses (the package ships no types). */
declare module 'madge' {
  interface MadgeResult {
    /** File -> the files it imports, relative to baseDir. */
    obj(): Record<string, string[]>;
    /** Every import cycle, each as the files along it. */
    circular(): string[][];
  }
  interface MadgeConfig {
    baseDir?: string;
    fileExtensions?: string[];
    tsConfig?: string;
  }
  export default function madge(paths: string | string[], config?: MadgeConfig): Promise<MadgeResult>;
}
