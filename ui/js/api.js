// The API as the dashboard calls it: same-origin fetches that carry the session
// cookie, the session's CSRF token on every request that changes something,
// and errors as ApiError with the API's own message.

let session = null; // SessionInfo of the signed-in key, or null

export function setSession(info) {
  session = info;
}

export function currentSession() {
  return session;
}

export class ApiError extends Error {
  constructor(status, message, code, retryAfter) {
    super(message);
    this.status = status; // 0: the service could not be reached
    this.code = code || null;
    this.retryAfter = retryAfter || null;
  }
}

// Listeners told of every 401 (the session ended or the key was revoked).
const unauthorizedListeners = [];
export function onUnauthorized(listener) {
  unauthorizedListeners.push(listener);
}

// `method` on `path` with `body` as JSON (if given); resolves to the parsed
// answer (null for 204), rejects with ApiError.
export async function request(method, path, body, extraHeaders = {}) {
  const headers = { Accept: 'application/json', ...extraHeaders };
  const init = { method, headers, credentials: 'same-origin', cache: 'no-store', redirect: 'error' };
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  if (method !== 'GET' && method !== 'HEAD' && session && session.csrfToken) {
    headers['X-Docwright-CSRF'] = session.csrfToken;
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, 'The service could not be reached. Check your connection and try again.', 'network');
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch (e) {
    data = null;
  }
  if (!response.ok) {
    const message = data && typeof data.error === 'string' ? data.error : `The service answered ${response.status}.`;
    const error = new ApiError(response.status, message, data && data.code, response.headers.get('Retry-After'));
    if (response.status === 401 && path !== '/v2/session') {
      for (const listener of unauthorizedListeners) listener(error);
    }
    throw error;
  }
  return data;
}

export const get = (path) => request('GET', path);
export const post = (path, body, headers) => request('POST', path, body, headers);
export const patch = (path, body) => request('PATCH', path, body);

// Path pieces from the API or the address bar, encoded as one segment each.
export function path(...segments) {
  return segments.map((s, i) => (i === 0 ? s : encodeURIComponent(s))).join('/');
}

// GET that waits and retries while the service says too many reads are in
// flight (429 with Retry-After), a few times.
export async function getPatiently(p, tries = 4) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await get(p);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 429 || attempt >= tries) throw e;
      const seconds = Math.min(Number(e.retryAfter) || 1, 5);
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    }
  }
}
