/**
 * uPlot (components/Plot.svelte) asks matchMedia for the pixel ratio when its module loads; jsdom
 * has none. Views that draw a plot are rendered in jsdom by several tests, so every jsdom file
 * gets a matchMedia that matches nothing (a ratio-1 screen). Node-environment files have no window.
 */
if (typeof window !== 'undefined' && typeof window.matchMedia !== 'function') {
  window.matchMedia = ((query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addEventListener: () => {},
    removeEventListener: () => {},
    addListener: () => {},
    removeListener: () => {},
    dispatchEvent: () => false,
  })) as unknown as typeof window.matchMedia;
}
