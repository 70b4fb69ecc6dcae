import { contextBridge, ipcRenderer } from 'electron';
import { BOOTSTRAP_CHANNEL, type DesktopBootstrap } from './bridge';

// The renderer gets the local API's address and this launch's token, and nothing else.
const bootstrap = ipcRenderer.sendSync(BOOTSTRAP_CHANNEL) as DesktopBootstrap;
contextBridge.exposeInMainWorld('ardesk', { apiBaseUrl: bootstrap.apiBaseUrl, token: bootstrap.token });
