// Follows a running job's log on its page: every two seconds, asks the page's trace.json for what
// the log gained since the offset the page holds, appends it (markup the server escaped) and shows
// the job's status, until the job has ended. Without this script the page reloads itself instead.
{
  const log = document.getElementById('job-log')
  if (log !== null && log.dataset.complete !== 'true') {
    const status = document.getElementById('job-status')
    let offset = Number(log.dataset.offset)
    const poll = async () => {
      try {
        const res = await fetch(`${log.dataset.traceUrl}?offset=${offset}`, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
        if (res.ok) {
          const next = await res.json()
          if (next.html !== '') log.insertAdjacentHTML('beforeend', next.html)
          offset = next.offset
          if (status !== null) status.textContent = next.status
          if (next.complete) return
        }
      } catch {
        // A failed poll is tried again with the next.
      }
      setTimeout(poll, 2000)
    }
    setTimeout(poll, 2000)
  }
}
