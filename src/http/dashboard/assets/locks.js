// The locks page, live: command buttons show their task until it ends, and the status (and the
// lock's health: a jam, the door, the battery's state, last seen) refreshes when the event stream
// says a lock changed (GET /dashboard/api/events/stream, server-sent events:
// docs/events.md). Where the stream is not to be had (the browser gave up on it: an older server's
// 404, a proxy that refuses it) the status is polled instead. Without this script the forms still
// work (the server waits for the task and shows how it ended).

(() => {
  const main = document.querySelector('main[data-csrf]');
  if (!main) return;
  const csrf = main.dataset.csrf;
  const POLL_TASK_MS = 250;
  const POLL_STATUS_MS = 3000;

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  async function api(path, options = {}) {
    const headers = { accept: 'application/json', 'x-csrf-token': csrf };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(path, { credentials: 'same-origin', ...options, headers });
    let body = {};
    try {
      body = await res.json();
    } catch {
      body = {};
    }
    if (res.status === 401) window.location.assign('/dashboard/login');
    return { ok: res.ok, status: res.status, body };
  }

  function show(output, text, kind) {
    output.textContent = text;
    output.classList.toggle('task-ok', kind === 'ok');
    output.classList.toggle('task-error', kind === 'error');
  }

  function setPill(card, field, text, good) {
    const pill = card.querySelector(`[data-field="${field}"]`);
    if (!pill) return;
    pill.textContent = text;
    pill.classList.toggle(field === 'locked' ? 'pill-locked' : 'pill-ok', good);
    pill.classList.toggle(field === 'locked' ? 'pill-unlocked' : 'pill-warn', !good);
  }

  const text = (card, field, value) => {
    const element = card.querySelector(`[data-field="${field}"]`);
    if (element) element.textContent = value;
    return element;
  };

  // The words of views/lock-health.ts, so the card reads the same before and after a change.
  function ago(at, now) {
    const seconds = Math.max(0, Math.round((now - at) / 1000));
    if (seconds < 45) return 'just now';
    const minutes = Math.round(seconds / 60);
    if (minutes < 60) return `${minutes} min ago`;
    const hours = Math.round(minutes / 60);
    if (hours < 36) return `${hours} h ago`;
    const days = Math.round(hours / 24);
    return `${days} day${days === 1 ? '' : 's'} ago`;
  }

  function trendWords(perDay) {
    if (perDay === null || perDay === undefined) return 'not known yet';
    const rounded = Math.round(perDay * 10) / 10;
    if (rounded === 0) return 'steady';
    const size = Math.abs(rounded).toFixed(1);
    return rounded < 0 ? `falling, \u2212${size} %/day` : `rising, +${size} %/day`;
  }

  function signalWords(dbm) {
    if (dbm === null) return 'signal not reported';
    const word = dbm >= -60 ? 'good' : dbm >= -75 ? 'fair' : 'weak';
    return `signal \u2212${Math.abs(dbm)} dBm (${word})`;
  }

  const BATTERY_WORDS = { ok: '', low: ' · low', critical: ' · critical' };

  // The health the event stream announces: a jam, the door, the battery's state, last seen.
  function renderHealth(card, lock, now) {
    const jammed = card.querySelector('[data-field="jammed"]');
    if (jammed) jammed.hidden = !lock.jammed;
    const door = text(card, 'door', lock.door === 'open' ? 'Door open' : 'Door closed');
    if (door) {
      door.hidden = lock.door === null;
      door.classList.toggle('door-open', lock.door === 'open');
    }
    const battery = text(
      card,
      'battery',
      `Battery ${lock.battery}%${BATTERY_WORDS[lock.battery_state] ?? ''}`,
    );
    if (battery) {
      battery.dataset.state = lock.battery_state;
      battery.classList.toggle('pill-warn', lock.battery_state === 'low');
      battery.classList.toggle('pill-danger', lock.battery_state === 'critical');
    }
    const seen = card.querySelector('[data-field="last-seen"]');
    if (seen && lock.last_seen_at) {
      const at = Date.parse(lock.last_seen_at);
      seen.textContent = ago(at, now);
      seen.setAttribute('datetime', lock.last_seen_at);
      seen.title = `${lock.last_seen_at.slice(0, 16).replace('T', ' ')} UTC`;
    }
    text(card, 'firmware', lock.firmware ?? 'not reported');
    text(card, 'trend', trendWords(lock.battery_per_day));
    const trend = card.querySelector('[data-field="trend-part"]');
    if (trend) trend.hidden = lock.battery_per_day === null || lock.battery_per_day === undefined;
    if (lock.auto_lock_seconds !== undefined)
      text(
        card,
        'summary-auto-lock',
        `auto-lock ${lock.auto_lock_seconds === 0 ? 'off' : `after ${lock.auto_lock_seconds} s`}`,
      );
    const ap = lock.access_point;
    if (ap) {
      text(card, 'ap-online', ap.online ? 'online' : 'offline');
      text(card, 'ap-signal', signalWords(ap.signal));
      text(card, 'ap-firmware', ap.firmware ?? 'not reported');
      text(card, 'ap-protocol', String(ap.protocol_version));
    }
  }

  function render(lock, now) {
    const card = document.querySelector(`[data-device-id="${lock.device_id}"]`);
    if (!card) return;
    setPill(card, 'locked', lock.locked ? 'Locked' : 'Unlocked', lock.locked);
    setPill(card, 'responsive', lock.responsive ? 'Online' : 'Offline', lock.responsive);
    renderHealth(card, lock, now);
    const app = card.querySelector('[data-field="app"]');
    if (app) app.textContent = lock.app_open ? 'Open: it holds the lock’s only connection' : 'Closed';
    const summary = card.querySelector('[data-field="summary-app"]');
    if (summary) summary.textContent = lock.app_open ? 'app open' : 'app closed';
    // The command that would change the lock stays the emphasised one.
    for (const button of card.querySelectorAll(
      'button[data-command="lock"], button[data-command="unlock"]',
    )) {
      const changes = (button.dataset.command === 'unlock') === lock.locked;
      button.classList.toggle('primary', changes);
      button.classList.toggle('secondary', !changes);
    }
  }

  async function refresh() {
    const { ok, body } = await api('/dashboard/api/locks');
    if (!ok) return;
    const now = Date.parse(body.now);
    for (const lock of [...body.owned, ...body.shared]) render(lock, now);
  }

  async function run(form) {
    const card = form.closest('[data-device-id]');
    const output = card.querySelector('[data-field="task"]');
    const buttons = card.querySelectorAll('.command-form button');
    const command = form.querySelector('input[name="command"]').value;
    for (const b of buttons) b.disabled = true;
    try {
      let answer = await api(`/dashboard/api/locks/${card.dataset.deviceId}/commands`, {
        method: 'POST',
        body: JSON.stringify({ command }),
      });
      if (!answer.ok) {
        show(output, answer.body.message || 'The command was refused.', 'error');
        return;
      }
      show(output, answer.body.message, 'busy');
      const taskId = answer.body.task_id;
      while (answer.ok && answer.body.status === 'processing') {
        await sleep(POLL_TASK_MS);
        answer = await api(`/dashboard/api/tasks/${encodeURIComponent(taskId)}`);
      }
      if (!answer.ok) show(output, answer.body.message || 'The task could not be read.', 'error');
      else show(output, answer.body.message, answer.body.successful ? 'ok' : 'error');
      await refresh();
    } catch {
      show(output, 'The server could not be reached.', 'error');
    } finally {
      for (const b of buttons) b.disabled = false;
    }
  }

  for (const form of document.querySelectorAll('.command-form')) {
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void run(form);
    });
  }
  let poller;
  function poll() {
    main.dataset.live = 'polling';
    poller ??= setInterval(() => {
      if (document.visibilityState === 'visible') refresh().catch(() => undefined);
    }, POLL_STATUS_MS);
  }

  // Several events in one moment (a command's request, movement and end) make one read.
  let pending = false;
  function soon() {
    if (pending) return;
    pending = true;
    setTimeout(() => {
      pending = false;
      refresh().catch(() => undefined);
    }, 0);
  }

  function follow() {
    if (typeof EventSource !== 'function') return poll();
    const stream = new EventSource('/dashboard/api/events/stream');
    // Each connection (the first, and each the browser makes again with Last-Event-ID after a drop)
    // starts with a read: whatever changed while it was away is shown.
    stream.addEventListener('open', () => {
      main.dataset.live = 'stream';
      clearInterval(poller);
      poller = undefined;
      soon();
    });
    stream.addEventListener('lock_event', soon);
    stream.addEventListener('close', (event) => {
      let reason;
      try {
        reason = JSON.parse(event.data).reason;
      } catch {
        reason = undefined;
      }
      // The session ended: as every other refusal of the page's requests, back to log in.
      if (reason === 'unauthorized') window.location.assign('/dashboard/login');
    });
    stream.addEventListener('error', () => {
      // CONNECTING: the browser tries again by itself (the server's `retry`). CLOSED: it gave up.
      if (stream.readyState === EventSource.CLOSED) poll();
    });
  }
  follow();
})();
