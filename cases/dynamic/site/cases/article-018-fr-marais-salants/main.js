import '../../shared/base.css';
import { createApp } from './app.js';

createApp().mount('#app');
