// 客户端渲染的文章：React 先取 api/article.json 绘制正文，页面加载后自动取 api/comments.json 显示评论
// （无需点击或滚动）。
import '../../shared/base.css';
import { createRoot } from 'react-dom/client';
import { useEffect, useState } from 'react';
import { Masthead, Footer, Paragraphs } from '../../shared/react/chrome.jsx';

const site = {
  name: '山城晚报',
  tagline: '记录山城的每一个傍晚',
  sections: ['本地', '民生', '文化', '体育', '评论'],
  footer: ['关于我们', '联系编辑部', '广告服务', '隐私政策'],
  footnote: '山城晚报社 版权所有',
};

function Comments() {
  const [comments, setComments] = useState(null);
  useEffect(() => {
    fetch('api/comments.json').then((response) => response.json()).then((data) => setComments(data.comments));
  }, []);
  return (
    <section className="comments" id="comments">
      <h2>网友评论</h2>
      {comments === null ? <p className="loading">评论加载中……</p> : (
        <ol className="comment-list">
          {comments.map((c) => (c.removed
            ? <li key={c.id} className="comment comment-removed" id={`comment-${c.id}`}><p className="notice">该评论已被删除</p></li>
            : (
              <li key={c.id} className="comment" id={`comment-${c.id}`}>
                <div className="comment-meta"><cite className="fn"><a href={`user/${c.uid}/`}>{c.author}</a></cite> <span className="says">说：</span> <a className="comment-permalink" href={`#comment-${c.id}`}>{c.date}</a></div>
                <div className="comment-content"><p>{c.text}</p></div>
                <a className="reply-link" href={`#reply-${c.id}`}>回复</a>
              </li>
            )))}
        </ol>
      )}
    </section>
  );
}

function Article() {
  const [story, setStory] = useState(null);
  useEffect(() => {
    fetch('api/article.json').then((response) => response.json()).then(setStory);
  }, []);
  if (!story) return <main><p className="loading">正在加载……</p></main>;
  return (
    <main>
      <article>
        <p className="kicker">{story.kicker}</p>
        <h1>{story.title}</h1>
        <p className="byline">记者 <span className="author">{story.author}</span> · <time>{story.date}</time></p>
        <div className="article-body"><Paragraphs blocks={story.blocks} /></div>
      </article>
      <Comments />
    </main>
  );
}

createRoot(document.getElementById('root')).render(
  <>
    <Masthead site={site} />
    <Article />
    <Footer site={site} />
  </>,
);
