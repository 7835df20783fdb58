// Rendu serveur au moment du build : le HTML qu'un serveur enverrait avant tout script.
import { renderToString } from 'vue/server-renderer';
import { createApp } from './app.js';

export function render() {
  return renderToString(createApp());
}
