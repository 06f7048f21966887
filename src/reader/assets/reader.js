// The flipbook reader. No dependencies and no third-party requests: one module, served by the
// daemon. It shows one page (narrow screens) or a two-page spread with the cover alone (wide
// screens), loads only the pages near the current one (srcset picks min/mid/max for the screen),
// and turns pages with a 3D flip unless the reader prefers reduced motion. The cover comes first:
// its image is fetched at high priority, the pages one turn away only once it has loaded. The
// page text (for search, and the alternative text of pages past the first few) is fetched the
// first time it is needed; while the version is processing, a small status JSON is polled.
const data = JSON.parse(document.getElementById('flipbook-data').textContent);
let total = data.pageCount;

/** Ready pages by number: { n, w, h, min, mid, max }; sizes come as runs of equal pages. */
const byNumber = new Map();
const addRuns = (runs) => {
  for (const [first, count, w, h] of runs) {
    for (let n = first; n < first + count; n++) {
      const base = `${data.pageBase}${n}/`;
      byNumber.set(n, {
        n,
        w,
        h,
        min: `${base}min.jpg`,
        mid: `${base}mid.jpg`,
        max: `${base}max.jpg`,
      });
    }
  }
};
addRuns(data.runs);

/** Alternative text: the first pages' come with the page, the others with the text JSON. */
const alts = new Map(data.alts.map((alt, i) => [i + 1, alt]));
const altText = (n, text) => {
  const words = text.replace(/\s+/g, ' ').trim();
  const excerpt = words.length > 180 ? `${words.slice(0, 180).replace(/\s+\S*$/, '')}…` : words;
  return excerpt ? `Page ${n}: ${excerpt}` : `Page ${n}`;
};

/** Every ready page's text, fetched once, when search or an alternative text first needs it. */
let texts = null;
const loadText = () => {
  texts ??= fetch(data.text)
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error(String(r.status)))))
    .then((body) => {
      const map = new Map(body.pages.map((p) => [p.n, p.text]));
      for (const n of byNumber.keys()) alts.set(n, altText(n, map.get(n) ?? ''));
      for (const img of stage.querySelectorAll('img[data-n]')) {
        img.alt = alts.get(Number(img.dataset.n)) ?? img.alt;
      }
      return map;
    })
    .catch(() => {
      texts = null; // try again next time
      return new Map();
    });
  return texts;
};

const book = document.getElementById('book');
const stage = document.getElementById('stage');
const slider = document.getElementById('slider');
const counter = document.getElementById('counter');
const live = document.getElementById('live');
const searchForm = document.querySelector('form.search');
const searchInput = document.getElementById('search-input');
const searchResult = document.getElementById('search-result');
const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');

let current = 1;
let zoomed = false;
let turning = false;

const clamp = (n) => Math.min(Math.max(1, Math.round(n) || 1), total);
const spreadMode = () => stage.clientWidth >= 720 && stage.clientWidth > stage.clientHeight * 1.05;

/** The pages shown together with page n: [n] alone, or a spread [left, right] with the cover alone. */
const visible = (n) => {
  if (!spreadMode()) return [n];
  if (n === 1) return [null, 1];
  const left = n % 2 === 0 ? n : n - 1;
  return [left, left + 1 <= total ? left + 1 : null];
};

const firstOf = (pages) => pages.find((p) => p !== null) ?? 1;
const lastOf = (pages) => [...pages].reverse().find((p) => p !== null) ?? 1;

const aspect = (n) => {
  const page = byNumber.get(n) ?? data.pages[0];
  return page && page.w > 0 && page.h > 0 ? page.w / page.h : 0.7;
};

const slotSize = (pages) => {
  const columns = pages.length;
  const width = stage.clientWidth / columns;
  const height = stage.clientHeight;
  const ratio = Math.max(...pages.map((n) => aspect(n ?? 1)));
  return width / height > ratio ? { w: height * ratio, h: height } : { w: width, h: width / ratio };
};

const pageElement = (n, side, size, priority = 'auto') => {
  const figure = document.createElement('figure');
  figure.className = `page ${side}`;
  figure.style.width = `${size.w}px`;
  figure.style.height = `${size.h}px`;
  if (n === null) {
    figure.classList.add('blank');
    figure.setAttribute('aria-hidden', 'true');
    return figure;
  }
  const page = byNumber.get(n);
  if (!page) {
    figure.classList.add('pending');
    figure.textContent = `Page ${n} is being prepared`;
    return figure;
  }
  const img = document.createElement('img');
  img.dataset.n = String(n);
  img.alt = alts.get(n) ?? `Page ${n}`;
  if (!alts.has(n)) loadText();
  // Before its source: the request goes out as soon as the source is set.
  img.setAttribute('fetchpriority', priority);
  img.decoding = 'async';
  img.width = Math.round(size.w);
  img.height = Math.round(size.h);
  if (zoomed) {
    img.src = page.max;
  } else {
    img.srcset = `${page.min} 300w, ${page.mid} 1000w, ${page.max} 2000w`;
    img.sizes = `${Math.ceil(size.w)}px`;
    img.src = page.mid;
  }
  figure.append(img);
  return figure;
};

/** Warms the browser cache for the pages one turn away, at the size they will be shown. */
const preload = () => {
  for (const n of [...visible(nextStart()), ...visible(prevStart())]) {
    const page = n && byNumber.get(n);
    if (!page) continue;
    const img = new Image();
    img.setAttribute('fetchpriority', 'low');
    img.sizes = `${Math.ceil(slotSize(visible(current)).w)}px`;
    img.srcset = `${page.min} 300w, ${page.mid} 1000w, ${page.max} 2000w`;
  }
};

/** Whether an image has loaded (or failed: nothing to wait for then). */
const settled = (img) =>
  img.complete
    ? Promise.resolve()
    : new Promise((resolve) => {
        img.addEventListener('load', resolve, { once: true });
        img.addEventListener('error', resolve, { once: true });
      });

let renders = 0;
const render = () => {
  const pages = visible(current);
  const size = slotSize(pages);
  const spread = pages.length === 2;
  const lead = firstOf(pages);
  stage.replaceChildren(
    ...pages.map((n, i) =>
      pageElement(
        n,
        spread ? (i === 0 ? 'left' : 'right') : 'single',
        size,
        n === lead ? 'high' : 'auto',
      ),
    ),
  );
  stage.classList.toggle('spread', spread);
  const shown = pages.filter((p) => p !== null);
  const label = shown.length === 2 ? `${shown[0]}–${shown[1]}` : `${shown[0]}`;
  counter.textContent = `${label} / ${total}`;
  slider.value = String(current);
  slider.setAttribute('aria-valuetext', `Page ${label} of ${total}`);
  live.textContent = `Page ${label} of ${total}`;
  const hash = `#page=${current}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
  for (const button of document.querySelectorAll('[data-action="prev"], [data-action="first"]')) {
    button.disabled = firstOf(pages) <= 1;
  }
  for (const button of document.querySelectorAll('[data-action="next"], [data-action="last"]')) {
    button.disabled = lastOf(pages) >= total;
  }
  slider.max = String(total);
  // The pages one turn away only once these are shown: they never compete with the cover.
  const shownNow = ++renders;
  Promise.all([...stage.querySelectorAll('img')].map(settled)).then(
    () => shownNow === renders && preload(),
  );
};

const nextStart = () => lastOf(visible(current)) + 1;
const prevStart = () => firstOf(visible(current)) - 1;

/** Turns to page n: a flip of the leaf between here and there, or at once if motion is unwanted. */
const go = (n) => {
  const target = clamp(n);
  const from = visible(current);
  const to = visible(target);
  if (firstOf(to) === firstOf(from) || turning) {
    current = target;
    render();
    return;
  }
  const forward = firstOf(to) > firstOf(from);
  current = target;
  if (reducedMotion.matches || zoomed || !stage.firstElementChild) {
    render();
    return;
  }
  turning = true;
  const size = slotSize(to);
  const leaf = document.createElement('div');
  leaf.className = `leaf ${forward ? 'forward' : 'backward'} ${to.length === 2 ? 'spread' : 'single'}`;
  leaf.style.width = `${size.w}px`;
  leaf.style.height = `${size.h}px`;
  const front = pageElement(forward ? lastOf(from) : firstOf(from), 'front', size);
  const back = pageElement(forward ? firstOf(to) : lastOf(to), 'back', size);
  leaf.append(front, back);
  // The pages beneath the turning leaf are the destination's.
  const under = to.map((p, i) =>
    pageElement(
      p,
      to.length === 2 ? (i === 0 ? 'left' : 'right') : 'single',
      size,
      p === firstOf(to) ? 'high' : 'auto',
    ),
  );
  stage.replaceChildren(...under, leaf);
  stage.classList.toggle('spread', to.length === 2);
  requestAnimationFrame(() => requestAnimationFrame(() => leaf.classList.add('turned')));
  let finished = false;
  const done = () => {
    if (finished) return;
    finished = true;
    turning = false;
    render();
  };
  leaf.addEventListener('transitionend', done, { once: true });
  setTimeout(done, 900);
};

const next = () => lastOf(visible(current)) < total && go(nextStart());
const prev = () => firstOf(visible(current)) > 1 && go(Math.max(1, prevStart()));

const setZoom = (on) => {
  zoomed = on;
  book.classList.toggle('zoomed', on);
  // Zoomed, the book scrolls: it must be reachable by keyboard to scroll it.
  book.tabIndex = on ? 0 : -1;
  const button = document.querySelector('[data-action="zoom"]');
  button.setAttribute('aria-pressed', String(on));
  button.setAttribute('aria-label', on ? 'Zoom out' : 'Zoom in');
  render();
};

const toggleFullscreen = () => {
  if (document.fullscreenElement) document.exitFullscreen();
  else document.documentElement.requestFullscreen?.();
};

let hits = [];
const search = async (query) => {
  const words = query.trim().toLowerCase();
  if (!words) return;
  searchResult.textContent = 'Searching…';
  const pageTexts = await loadText();
  hits = [...pageTexts]
    .filter(([, text]) => text.toLowerCase().includes(words))
    .map(([n]) => n)
    .sort((a, b) => a - b);
  if (hits.length === 0) {
    searchResult.textContent = `No page contains “${query.trim()}”.`;
    return;
  }
  const after = lastOf(visible(current));
  const target = hits.find((n) => n > after) ?? hits[0];
  const index = hits.indexOf(target) + 1;
  searchResult.textContent = `Page ${target}: match ${index} of ${hits.length}.`;
  go(target);
};

const actions = {
  next,
  prev,
  first: () => go(1),
  last: () => go(total),
  zoom: () => setZoom(!zoomed),
  fullscreen: toggleFullscreen,
  search: () => {
    const open = searchForm.hidden;
    searchForm.hidden = !open;
    document.querySelector('[data-action="search"]').setAttribute('aria-expanded', String(open));
    if (open) searchInput.focus();
  },
};

document.addEventListener('click', (event) => {
  const target = event.target.closest('[data-action]');
  const action = target && actions[target.dataset.action];
  if (!action) return;
  if (zoomed && target.classList.contains('edge')) return; // zoomed: the edges pan, never flip
  event.preventDefault();
  action();
});

document.addEventListener('keydown', (event) => {
  if (
    event.target.closest?.('input, textarea, select') ||
    event.altKey ||
    event.ctrlKey ||
    event.metaKey
  )
    return;
  const keys = {
    ArrowRight: next,
    ArrowDown: next,
    PageDown: next,
    ArrowLeft: prev,
    ArrowUp: prev,
    PageUp: prev,
    Home: actions.first,
    End: actions.last,
  };
  const action = keys[event.key];
  if (action && !(zoomed && event.key.startsWith('Arrow'))) {
    event.preventDefault();
    action();
  }
});

slider.addEventListener('input', () => go(Number(slider.value)));
searchForm.addEventListener('submit', (event) => {
  event.preventDefault();
  search(searchInput.value);
});
stage.addEventListener('dblclick', () => setZoom(!zoomed));

// Pinch: two fingers apart zoom in (to img_max), together zoom out. The stage handles its own
// pinch (touch-action in the CSS) so the gesture means the same everywhere on the book.
let pinch = null;
const spread2 = (touches) =>
  Math.hypot(touches[0].clientX - touches[1].clientX, touches[0].clientY - touches[1].clientY);
stage.addEventListener(
  'touchstart',
  (e) => {
    pinch = e.touches.length === 2 ? spread2(e.touches) : null;
  },
  { passive: true },
);
stage.addEventListener(
  'touchmove',
  (e) => {
    if (pinch === null || e.touches.length !== 2) return;
    const ratio = spread2(e.touches) / pinch;
    if (ratio > 1.25 && !zoomed) setZoom(true);
    if (ratio < 0.8 && zoomed) setZoom(false);
  },
  { passive: true },
);

let touch = null;
stage.addEventListener(
  'touchstart',
  (e) => {
    touch = e.touches.length === 1 ? { x: e.touches[0].clientX, y: e.touches[0].clientY } : null;
  },
  { passive: true },
);
stage.addEventListener('touchend', (e) => {
  if (!touch || zoomed || e.changedTouches.length !== 1) return;
  const dx = e.changedTouches[0].clientX - touch.x;
  const dy = e.changedTouches[0].clientY - touch.y;
  touch = null;
  if (Math.abs(dx) > 40 && Math.abs(dx) > Math.abs(dy) * 1.5) (dx < 0 ? next : prev)();
});

const fromHash = () => Number(/page=(\d+)/.exec(location.hash)?.[1] ?? 1);
window.addEventListener('hashchange', () => go(fromHash()));
new ResizeObserver(() => {
  if (!turning) render();
}).observe(stage);

// While the version is still processing, pick up newly ready pages now and then from the status
// JSON (a 304 when nothing changed). The stage is redrawn only when a page it shows became ready,
// and the notice floats over the book: when processing ends, nothing on screen moves.
if (data.processing) {
  const poll = async () => {
    const status = await fetch(data.status, { cache: 'no-cache' })
      .then((r) => (r.ok ? r.json() : null))
      .catch(() => null);
    if (status && status.versionId !== data.versionId) {
      location.reload(); // another version is shown now: the page holds another book
      return;
    }
    if (status) {
      const shown = visible(current);
      const missing = shown.filter((n) => n !== null && !byNumber.has(n));
      const before = byNumber.size;
      addRuns(status.runs);
      if (byNumber.size !== before) texts = null; // the text JSON has more pages now
      const grown = Math.max(status.pageCount, status.ready) !== total;
      total = Math.max(status.pageCount, status.ready, total);
      if (!turning && (grown || missing.some((n) => byNumber.has(n)))) render();
      if (status.status === 'done') document.querySelector('.notice')?.remove();
      if (status.status === 'error') {
        const notice = document.querySelector('.notice');
        if (notice) notice.textContent = 'The rest of this version could not be prepared.';
      }
      if (status.status === 'done' || status.status === 'error') return;
    }
    setTimeout(poll, 5000);
  };
  setTimeout(poll, 5000);
}

current = clamp(fromHash());
document.documentElement.classList.add('js');
render();
