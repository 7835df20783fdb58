// Lazy images with captions: each photograph's file is in data-src and is loaded only when its figure
// comes near the viewport (an IntersectionObserver); the captions are ordinary text of the first load.
import '../../shared/base.css';

const observer = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    const image = entry.target;
    image.src = image.dataset.src;
    image.classList.remove('lazy');
    observer.unobserve(image);
  }
}, { rootMargin: '200px 0px' });

document.querySelectorAll('img.lazy').forEach((image) => observer.observe(image));
