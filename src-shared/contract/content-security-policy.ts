/**
 * The console's content security policy, one definition for the Electron window, the built
 * renderer's meta tag and the web-mode server. No 'unsafe-eval' and no inline scripts anywhere;
 * inline styles only for the Vite dev server, which injects <style> tags while developing.
 */
export interface CspOptions {
  /** Extra origins the page may connect to (the web-mode WebSocket, the Vite dev server). */
  connect?: string[];
  /** Development with the Vite dev server (hot reload): allows its injected styles. */
  dev?: boolean;
  /** For a <meta> tag, where browsers ignore (and warn about) frame-ancestors. */
  meta?: boolean;
}

export function contentSecurityPolicy(options: CspOptions = {}): string {
  const connect = ["'self'", ...(options.connect ?? [])].join(' ');
  const style = options.dev ? "'self' 'unsafe-inline'" : "'self'";
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${style}`,
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
    ...(options.meta ? [] : ["frame-ancestors 'none'"]),
    "object-src 'none'",
  ].join('; ');
}
