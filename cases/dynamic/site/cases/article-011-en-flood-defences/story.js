import '../../shared/base.css';
