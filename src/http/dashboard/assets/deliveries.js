// API Settings' delivery log, live: new webhook messages and their outcomes appear without a reload.
// Without this script the page still shows the log as it was when loaded.

(() => {
  const table = document.querySelector('table[data-live]');
  if (!table) return;
  const POLL_MS = 3000;
  const body = table.querySelector('tbody');
  const wrap = table.closest('.table-wrap');
  const empty = document.querySelector('[data-testid="no-deliveries"]');
  const PILL = { delivered: 'pill-ok', failed: 'pill-warn' };

  function cell(text) {
    const td = document.createElement('td');
    td.textContent = String(text);
    return td;
  }

  function row(d) {
    const tr = document.createElement('tr');
    tr.dataset.deliveryId = d.id;
    const pill = document.createElement('span');
    pill.className = `pill ${PILL[d.status] || ''}`.trim();
    pill.textContent = d.status;
    const status = document.createElement('td');
    status.append(pill);
    tr.append(
      cell(d.time),
      cell(d.event),
      cell(d.lock),
      status,
      cell(d.http),
      cell(d.attempts),
      cell(d.error),
    );
    return tr;
  }

  async function refresh() {
    const res = await fetch(table.dataset.live, {
      credentials: 'same-origin',
      headers: { accept: 'application/json' },
    });
    // Logged out or API Settings locked again: the page says so on its next load; stop asking.
    if (res.status === 401 || res.status === 403) return false;
    if (!res.ok) return true;
    const { deliveries } = await res.json();
    body.replaceChildren(...deliveries.map(row));
    if (wrap) wrap.hidden = deliveries.length === 0;
    if (empty) empty.hidden = deliveries.length > 0;
    return true;
  }

  const timer = setInterval(() => {
    if (document.visibilityState !== 'visible') return;
    refresh()
      .then((more) => {
        if (!more) clearInterval(timer);
      })
      .catch(() => undefined);
  }, POLL_MS);
})();
