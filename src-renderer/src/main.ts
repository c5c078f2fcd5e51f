/** Entry of the console UI: pick the transport (Electron bridge or web-mode socket) and mount. */
import { mount } from 'svelte';
import type { ConsoleBridge } from '#contract/console-api';
import { wallSeconds } from '#contract/time';
import App from './App.svelte';
import { selectClient } from './api/select-client';
import { ConsoleState } from './state/console-state.svelte';

const state = new ConsoleState();
const client = selectClient(window as Window & { parapush?: ConsoleBridge }, (reason) =>
  state.addLog({ at: wallSeconds(), level: 'warn', source: 'console', message: reason }),
);
mount(App, { target: document.getElementById('app')!, props: { client, model: state } });
