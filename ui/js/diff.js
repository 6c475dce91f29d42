// A unified diff (git's) as rows the stylesheet colours: .file, .meta, .hunk,
// .add, .del, .ctx, each a text node. The local pull request page uses the
// same classes.
import { h } from './h.js';

export function lineClass(line) {
  if (line.startsWith('diff --git ')) return 'file';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+++ ') || line.startsWith('--- ')) return 'meta';
  if (/^(index |new file|deleted file|similarity|rename |old mode|new mode|Binary files)/.test(line)) return 'meta';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  if (line.startsWith('\\')) return 'meta';
  return 'ctx';
}

export function diffView(text, attrs = {}) {
  const lines = String(text).split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return h('div', { class: 'diff', role: 'region', tabindex: '0', ...attrs },
    lines.map((line) => h('div', { class: lineClass(line) }, line || '\u00a0')));
}

// A path as git writes it in a header: C-quoted when it has special characters.
function unquote(p) {
  if (!p.startsWith('"')) return p;
  try {
    return JSON.parse(p.replace(/\\([0-7]{3})/g, (_, o) => `\\u00${parseInt(o, 8).toString(16).padStart(2, '0')}`));
  } catch (e) {
    return p;
  }
}

// The diff split at each "diff --git": [{path, text}], path being the file's
// new path (its old one when it was deleted).
export function splitByFile(text) {
  const parts = [];
  let current = null;
  for (const line of String(text).split('\n')) {
    if (line.startsWith('diff --git ')) {
      current = { path: null, lines: [] };
      parts.push(current);
      const b = line.lastIndexOf(' b/');
      if (b > 0) current.path = unquote(line.slice(b + 3));
    } else if (!current) {
      current = { path: null, lines: [] };
      parts.push(current);
    }
    if (line.startsWith('+++ ') && !line.endsWith('/dev/null')) {
      current.path = unquote(line.slice(4)).replace(/^b\//, '');
    }
    current.lines.push(line);
  }
  return parts.map((p) => ({ path: p.path, text: p.lines.join('\n') }));
}
