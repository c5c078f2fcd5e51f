/**
 * Types for the part of Electron the shell uses, for machines where the optional `electron`
 * package is absent (its binary download is blocked there). tsconfig maps 'electron' to the
 * real package first and to this file only when the package is missing, so on a lab PC the
 * shell is checked against Electron's own types. Keep it a faithful subset of them.
 */
type Listener<A extends unknown[]> = (...args: A) => void;

export interface Event {
  preventDefault(): void;
}

export interface WebFrameMain {
  readonly url: string;
  readonly parent: WebFrameMain | null;
}

export interface IpcMainInvokeEvent extends Event {
  readonly senderFrame: WebFrameMain | null;
}

export interface WebContents {
  on(event: 'did-finish-load', listener: Listener<[]>): this;
  on(event: 'will-navigate' | 'will-redirect' | 'will-attach-webview', listener: Listener<[Event]>): this;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' } | { action: 'allow' }): void;
  postMessage(channel: string, message: unknown, transfer?: MessagePortMain[]): void;
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
}

export interface BrowserWindowConstructorOptions {
  width?: number;
  height?: number;
  minWidth?: number;
  minHeight?: number;
  title?: string;
  backgroundColor?: string;
  show?: boolean;
  autoHideMenuBar?: boolean;
  webPreferences?: {
    preload?: string;
    contextIsolation?: boolean;
    sandbox?: boolean;
    nodeIntegration?: boolean;
    nodeIntegrationInWorker?: boolean;
    nodeIntegrationInSubFrames?: boolean;
    webSecurity?: boolean;
    allowRunningInsecureContent?: boolean;
    experimentalFeatures?: boolean;
    webviewTag?: boolean;
    navigateOnDragDrop?: boolean;
    safeDialogs?: boolean;
    spellcheck?: boolean;
  };
}

export class BrowserWindow {
  constructor(options?: BrowserWindowConstructorOptions);
  readonly webContents: WebContents;
  on(event: 'closed', listener: Listener<[]>): this;
  once(event: 'ready-to-show', listener: Listener<[]>): this;
  loadURL(url: string): Promise<void>;
  show(): void;
}

export interface App {
  readonly isPackaged: boolean;
  whenReady(): Promise<void>;
  on(event: 'web-contents-created', listener: Listener<[Event, WebContents]>): this;
  on(event: 'window-all-closed', listener: Listener<[]>): this;
  quit(): void;
  getPath(name: 'userData'): string;
}
export const app: App;

export interface IpcMain {
  handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown): void;
}
export const ipcMain: IpcMain;

export interface Privileges {
  standard?: boolean;
  secure?: boolean;
  bypassCSP?: boolean;
  allowServiceWorkers?: boolean;
  supportFetchAPI?: boolean;
  corsEnabled?: boolean;
  stream?: boolean;
  codeCache?: boolean;
}
export interface CustomScheme {
  scheme: string;
  privileges?: Privileges;
}
export interface Protocol {
  registerSchemesAsPrivileged(customSchemes: CustomScheme[]): void;
  handle(scheme: string, handler: (request: Request) => Response | Promise<Response>): void;
}
export const protocol: Protocol;

export interface MessagePortMain {
  postMessage(message: unknown): void;
  start(): void;
  close(): void;
}
export class MessageChannelMain {
  readonly port1: MessagePortMain;
  readonly port2: MessagePortMain;
}

export interface Session {
  setPermissionRequestHandler(
    handler:
      ((contents: WebContents, permission: string, callback: (granted: boolean) => void) => void) | null,
  ): void;
  setPermissionCheckHandler(
    handler: ((contents: WebContents | null, permission: string) => boolean) | null,
  ): void;
  readonly webRequest: {
    onHeadersReceived(
      listener: (
        details: { responseHeaders?: Record<string, string[]> },
        callback: (response: { responseHeaders?: Record<string, string[] | string> }) => void,
      ) => void,
    ): void;
  };
}
export const session: { readonly defaultSession: Session };

export interface IpcRendererEvent extends Event {
  readonly ports: MessagePort[];
}
export interface IpcRenderer {
  on(channel: string, listener: (event: IpcRendererEvent, ...args: unknown[]) => void): this;
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
}
export const ipcRenderer: IpcRenderer;

export const contextBridge: { exposeInMainWorld(apiKey: string, api: unknown): void };

export interface ForkOptions {
  env?: Record<string, string | undefined>;
  execArgv?: string[];
  cwd?: string;
  stdio?: 'pipe' | 'ignore' | 'inherit' | ('pipe' | 'ignore' | 'inherit')[];
  serviceName?: string;
}
export interface UtilityProcess {
  readonly pid: number | undefined;
  postMessage(message: unknown, transfer?: MessagePortMain[]): void;
  kill(): boolean;
  on(event: 'message', listener: Listener<[unknown]>): this;
  on(event: 'spawn', listener: Listener<[]>): this;
  once(event: 'exit', listener: Listener<[number]>): this;
  once(event: 'spawn', listener: Listener<[]>): this;
}
export const utilityProcess: {
  fork(modulePath: string, args?: string[], options?: ForkOptions): UtilityProcess;
};
