// Building the DOM without HTML strings: h() sets only attributes, listeners
// and text, so a value from the API is always text, whatever it contains. The
// one exception is setSanitisedHtml, for the HTML the server sanitised itself
// (a page's preview, a pull request's description).

// Attribute values that load or navigate: only these kinds of URL, never
// javascript: or any other scheme a value could smuggle in.
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction']);
export function safeUrl(url) {
  const s = String(url);
  if (s.startsWith('#') || (s.startsWith('/') && !s.startsWith('//'))) return s;
  try {
    const parsed = new URL(s, window.location.href);
    if (parsed.protocol === 'https:' || parsed.protocol === 'http:') return parsed.href;
  } catch (e) {
    // not a URL: refused below
  }
  return '#';
}

// h('a', {href: '#/x', class: 'c', on: {click: fn}}, 'text', child, [more]):
// an element with those attributes (null/undefined/false are left out, true is
// present), listeners, and children (strings become text nodes).
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'on') {
      for (const [type, listener] of Object.entries(value)) el.addEventListener(type, listener);
      continue;
    }
    // Handlers are listeners, never attributes: an attribute would be script
    // from a string, which the Content-Security-Policy refuses anyway.
    if (/^on/i.test(name)) throw new Error(`h(): use {on: {...}} for ${name}`);
    if (name === 'value' && (tag === 'input' || tag === 'textarea' || tag === 'select')) {
      el.value = String(value);
      continue;
    }
    const text = value === true ? '' : String(value);
    el.setAttribute(name, URL_ATTRIBUTES.has(name) ? safeUrl(text) : text);
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// Empties `el` and gives it `children`.
export function replace(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}

// The one place HTML from a string enters the page: `html` must be HTML the
// server sanitised (the review's previewHtml or pullRequestBodyHtml; see
// docs/api.md). It goes into `container`, an element of its own.
export function setSanitisedHtml(container, html) {
  container.innerHTML = String(html ?? ''); // server-sanitised: previewHtml, pullRequestBodyHtml
  return container;
}
