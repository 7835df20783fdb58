// A static control: the download links are in the server's HTML; the script only marks the quarter that is
// current, which changes nothing a resource list holds.
import '../../shared/base.css';

const first = document.querySelector('ul.downloads li');
if (first) first.classList.add('current');
