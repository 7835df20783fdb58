// Comments loaded automatically after load: the article is server HTML; the comment thread is a React
// widget that fetches api/comments.json as soon as the page has loaded (no click, no scroll).
import '../../shared/base.css';
import { createRoot } from 'react-dom/client';
import { useEffect, useState } from 'react';

function Comment({ comment }) {
  if (comment.removed) return <li className="comment comment-removed" id={`comment-${comment.id}`}><p className="notice">This comment was removed by a moderator.</p></li>;
  return (
    <li className="comment" id={`comment-${comment.id}`}>
      <div className="comment-meta"><cite className="fn"><a href={`readers/${comment.handle}/`}>{comment.author}</a></cite> <span className="says">says:</span> <a className="comment-permalink" href={`#comment-${comment.id}`}>{comment.date}</a></div>
      <div className="comment-content"><p>{comment.text}</p></div>
      <a className="reply-link" href={`#reply-${comment.id}`}>Reply</a>
      {comment.replies ? <ol className="children">{comment.replies.map((reply) => <Comment key={reply.id} comment={reply} />)}</ol> : null}
    </li>
  );
}

function Thread() {
  const [comments, setComments] = useState(null);
  useEffect(() => {
    fetch('api/comments.json').then((response) => response.json()).then((data) => setComments(data.comments));
  }, []);
  if (!comments) return <p className="loading">Loading comments…</p>;
  return <ol className="comment-list">{comments.map((comment) => <Comment key={comment.id} comment={comment} />)}</ol>;
}

createRoot(document.getElementById('comment-thread')).render(<Thread />);
