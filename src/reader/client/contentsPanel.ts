// The contents panel: the PDF's outline, read from the document's structure (./book.ts). Loaded
// the first time the panel opens (./panels.ts).
import { plainText } from './altText.ts';
import type { OutlineEntry } from './book.ts';
import type { Builder } from './panelTypes.ts';
import { say } from './say.ts';

/** The outline, nested as the PDF has it; an entry is a link to its page (#page=N). */
export const buildContents: Builder = async (body, reader, _close, built) => {
  body.textContent = say('loadingContents');
  const { outline, pending } = await reader.book.structure();
  body.textContent = '';
  if (!outline?.length) {
    const p = document.createElement('p');
    p.className = 'empty';
    p.textContent = say(pending ? 'contentsLater' : 'noContents');
    body.append(p);
    // Built again when next opened, once the document is done.
    if (pending) built.delete('contents');
    return;
  }
  const list = (entries: OutlineEntry[]) => {
    const ul = document.createElement('ul');
    for (const entry of entries) {
      const li = document.createElement('li');
      if (entry.page) {
        const a = document.createElement('a');
        a.href = `#page=${entry.page}`;
        a.dataset.page = String(entry.page);
        const title = document.createElement('span');
        title.textContent = plainText(entry.title);
        const label = document.createElement('span');
        label.className = 'page-label';
        label.textContent = reader.book.label(entry.page);
        a.append(title, label);
        li.append(a);
      } else {
        const heading = document.createElement('span');
        heading.className = 'heading';
        heading.textContent = plainText(entry.title);
        li.append(heading);
      }
      if (entry.children?.length) li.append(list(entry.children));
      ul.append(li);
    }
    return ul;
  };
  const nav = document.createElement('nav');
  nav.dir = reader.book.data.dir; // the book's words in the book's direction, whatever the reader's
  nav.setAttribute('aria-label', say('tableOfContents'));
  nav.append(list(outline));
  body.append(nav);
  reader.panels?.follow(reader.shown());
};
