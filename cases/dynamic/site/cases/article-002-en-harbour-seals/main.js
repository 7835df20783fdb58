import '../../shared/base.css';
import { createElement } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { App } from './app.js';

hydrateRoot(document.getElementById('root'), createElement(App));
