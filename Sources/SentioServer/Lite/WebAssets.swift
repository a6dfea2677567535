/// The signals dashboard at `/`: static HTML, CSS and JavaScript compiled into the binary (no build step,
/// nothing fetched from the internet). It reads `/api/v1/portfolio` and `/api/v1/signals`, listens on
/// `/ws/signals` (each `signal_update` replaces its symbol's card), and draws the selected symbol's closes from
/// `/api/v1/symbols/{symbol}?timeframe=3M` as an inline SVG line. The LP portal's login form (`#login`) posts
/// to `/api/auth/callback/credentials`, keeps the token in `sessionStorage` (gone with the tab) and shows the
/// dashboard's summary and funds from `/api/dashboard`; "Forgot password?" posts to
/// `/api/auth/request-password-reset`. ``resetPage`` is the page of the reset link.
enum WebAssets {
    static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Sentio signals</title>
    <link rel="stylesheet" href="/static/app.css">
    </head>
    <body>
    <header><h1>Sentio</h1><span id="status" data-state="connecting">connecting…</span></header>
    <section id="portfolio">
      <div class="metric"><span class="label">Portfolio value</span><span id="portfolio-value">–</span></div>
      <div class="metric"><span class="label">Day change</span><span id="day-change">–</span></div>
      <div class="metric"><span class="label">Total return</span><span id="total-return">–</span></div>
    </section>
    <section id="chart-panel">
      <h2 id="chart-title">Price</h2>
      <svg id="chart" viewBox="0 0 600 200" preserveAspectRatio="none" role="img" aria-label="price chart"></svg>
    </section>
    <section id="cards"></section>
    <section id="lp">
      <h2>LP portal</h2>
      <form id="login" method="post">
        <label>Email <input id="login-email" type="email" name="email" autocomplete="username" required></label>
        <label>Password <input id="login-password" type="password" name="password" autocomplete="current-password" required></label>
        <button type="submit">Log in</button>
        <button type="button" id="forgot">Forgot password?</button>
        <p id="login-message" role="status"></p>
      </form>
      <div id="lp-dashboard" hidden>
        <p>Signed in as <span id="lp-user"></span> <button type="button" id="logout">Sign out</button></p>
        <div class="metric"><span class="label">Total commitments</span><span id="lp-commitment">–</span></div>
        <div class="metric"><span class="label">Total NAV</span><span id="lp-nav">–</span></div>
        <div class="metric"><span class="label">Portfolio TVPI</span><span id="lp-tvpi">–</span></div>
        <ul id="lp-funds"></ul>
      </div>
    </section>
    <script src="/static/app.js"></script>
    </body>
    </html>
    """#

    static let style = #"""
    body { font-family: system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #1b1f24; }
    header { display: flex; align-items: baseline; gap: 1rem; padding: 0.8rem 1.2rem; background: #1b1f24; color: #fff; }
    header h1 { margin: 0; font-size: 1.3rem; }
    #status { font-size: 0.85rem; opacity: 0.8; }
    #portfolio { display: flex; gap: 1rem; padding: 1rem 1.2rem; flex-wrap: wrap; }
    .metric { background: #fff; border-radius: 8px; padding: 0.8rem 1rem; min-width: 12rem; box-shadow: 0 1px 2px #0002; }
    .metric .label { display: block; font-size: 0.8rem; color: #5b6470; }
    .metric span:last-child { font-size: 1.4rem; font-weight: 600; }
    #chart-panel { margin: 0 1.2rem; background: #fff; border-radius: 8px; padding: 0.6rem 1rem; box-shadow: 0 1px 2px #0002; }
    #chart-panel h2 { font-size: 1rem; margin: 0.2rem 0 0.5rem; }
    #chart { width: 100%; height: 200px; }
    #cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); gap: 1rem; padding: 1rem 1.2rem; }
    .card { background: #fff; border-radius: 8px; padding: 0.8rem 1rem; box-shadow: 0 1px 2px #0002; cursor: pointer; }
    .card h3 { margin: 0; display: flex; justify-content: space-between; }
    .card .type { font-size: 0.8rem; padding: 0.1rem 0.5rem; border-radius: 4px; background: #e4e7eb; }
    .card .type.BUY { background: #c9f0d3; } .card .type.SELL { background: #f6cfcf; }
    .card dl { display: grid; grid-template-columns: auto auto; margin: 0.5rem 0 0; font-size: 0.85rem; }
    .card dt { color: #5b6470; } .card dd { margin: 0; text-align: right; }
    .up { color: #137333; } .down { color: #b3261e; }
    #lp { margin: 0 1.2rem 1.5rem; background: #fff; border-radius: 8px; padding: 0.6rem 1rem; box-shadow: 0 1px 2px #0002; }
    #lp h2 { font-size: 1rem; margin: 0.2rem 0 0.5rem; }
    #login label { display: inline-block; margin-right: 0.8rem; font-size: 0.85rem; }
    #lp-dashboard .metric { display: inline-block; margin-right: 0.8rem; }
    """#

    static let script = #"""
    "use strict";
    const money = (x) => x.toLocaleString("en-US", { style: "currency", currency: "USD" });
    const pct = (x) => (x >= 0 ? "+" : "") + x.toFixed(2) + "%";
    const signed = (x) => (x >= 0 ? "+" : "-") + money(Math.abs(x));
    const cards = new Map();
    let selected = null;

    function setStatus(text, state) {
      const el = document.getElementById("status");
      el.textContent = text; el.dataset.state = state;
    }

    function renderCard(signal) {
      let card = cards.get(signal.symbol);
      if (!card) {
        card = document.createElement("article");
        card.className = "card";
        card.dataset.symbol = signal.symbol;
        card.addEventListener("click", () => loadChart(signal.symbol));
        document.getElementById("cards").appendChild(card);
        cards.set(signal.symbol, card);
      }
      card.dataset.timestamp = signal.timestamp;
      card.innerHTML = "";
      const h = document.createElement("h3");
      const name = document.createElement("span"); name.textContent = signal.symbol;
      const type = document.createElement("span"); type.className = "type " + signal.signalType; type.textContent = signal.signalType;
      h.append(name, type);
      const dl = document.createElement("dl");
      const rows = [
        ["Price", money(signal.price), "price"],
        ["Change", pct(signal.changePercent), "changePercent"],
        ["Confidence", (signal.confidence * 100).toFixed(0) + "%", "confidence"],
        ["Target", pct(signal.targetReturn), "targetReturn"],
        ["Stop", pct(signal.stopLoss), "stopLoss"],
        ["RSI", signal.rsi.toFixed(1), "rsi"],
      ];
      for (const [label, value, field] of rows) {
        const dt = document.createElement("dt"); dt.textContent = label;
        const dd = document.createElement("dd"); dd.textContent = value; dd.dataset.field = field;
        dd.dataset.value = String(signal[field]);
        if (field === "changePercent") dd.className = signal.changePercent >= 0 ? "up" : "down";
        dl.append(dt, dd);
      }
      const p = document.createElement("p"); p.textContent = signal.recommendation;
      card.append(h, dl, p);
      if (selected === null) loadChart(signal.symbol);
    }

    async function loadPortfolio() {
      try {
        const r = await fetch("/api/v1/portfolio");
        if (!r.ok) return;
        const p = await r.json();
        document.getElementById("portfolio-value").textContent = money(p.currentValue);
        const day = document.getElementById("day-change");
        day.textContent = signed(p.dayPnL) + " (" + pct(p.dayPnLPercent) + ")";
        day.className = p.dayPnL >= 0 ? "up" : "down";
        const total = document.getElementById("total-return");
        total.textContent = pct(p.totalPnLPercent);
        total.className = p.totalPnL >= 0 ? "up" : "down";
      } catch (e) { /* the next update retries */ }
    }

    async function loadChart(symbol) {
      selected = symbol;
      const r = await fetch("/api/v1/symbols/" + encodeURIComponent(symbol) + "?timeframe=3M");
      if (!r.ok) return;
      const d = await r.json();
      document.getElementById("chart-title").textContent = d.symbol + " · " + d.name + " · " + money(d.price);
      const closes = d.historicalData.map((b) => b.close);
      const svg = document.getElementById("chart");
      if (closes.length < 2) { svg.innerHTML = ""; return; }
      const lo = Math.min(...closes), hi = Math.max(...closes), span = hi - lo || 1;
      const pts = closes.map((c, i) => (i * 600 / (closes.length - 1)).toFixed(1) + "," + (195 - (c - lo) * 190 / span).toFixed(1));
      svg.innerHTML = '<polyline fill="none" stroke="#1a73e8" stroke-width="2" points="' + pts.join(" ") + '"/>';
    }

    async function loadSignals() {
      const r = await fetch("/api/v1/signals");
      if (!r.ok) return;
      const s = await r.json();
      for (const signal of s.signals) renderCard(signal);
    }

    let refresh = null;
    function connect() {
      const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws/signals");
      ws.onopen = () => setStatus("live", "live");
      ws.onmessage = (event) => {
        const message = JSON.parse(event.data);
        if (message.type !== "signal_update") return;
        renderCard(message.data.signal);
        document.body.dataset.updates = String(Number(document.body.dataset.updates || "0") + 1);
        clearTimeout(refresh);
        refresh = setTimeout(() => { loadPortfolio(); if (selected === message.data.symbol) loadChart(selected); }, 500);
      };
      ws.onclose = () => { setStatus("reconnecting…", "closed"); setTimeout(connect, 2000); };
    }

    // LP portal: log in, then the dashboard.
    async function showDashboard() {
      const token = sessionStorage.getItem("lpToken");
      if (!token) return;
      const r = await fetch("/api/dashboard", { headers: { Authorization: "Bearer " + token } });
      if (r.status === 401) { sessionStorage.removeItem("lpToken"); return; }
      if (!r.ok) return;
      const d = await r.json();
      document.getElementById("login").hidden = true;
      document.getElementById("lp-dashboard").hidden = false;
      document.getElementById("lp-user").textContent = sessionStorage.getItem("lpEmail") || "";
      document.getElementById("lp-commitment").textContent = money(d.portfolioSummary.totalCommitment);
      document.getElementById("lp-nav").textContent = money(d.portfolioSummary.totalNav);
      const summary = d.portfolioSummary;
      document.getElementById("lp-tvpi").textContent = summary.portfolioTvpiDefined ? summary.portfolioTvpi.toFixed(2) + "x" : "n/a";
      const list = document.getElementById("lp-funds");
      list.innerHTML = "";
      for (const f of d.funds) {
        const li = document.createElement("li"); li.textContent = f.name + " · NAV " + money(f.nav) + " · TVPI " + f.tvpi.toFixed(2) + "x";
        list.appendChild(li);
      }
      document.body.dataset.lp = "dashboard";
    }
    document.getElementById("login").addEventListener("submit", async (event) => {
      event.preventDefault();
      const email = document.getElementById("login-email").value, password = document.getElementById("login-password").value;
      const message = document.getElementById("login-message");
      const r = await fetch("/api/auth/callback/credentials", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ email, password }) });
      const body = await r.json();
      if (!r.ok) { message.textContent = body.error; document.body.dataset.lp = "error"; return; }
      sessionStorage.setItem("lpToken", body.token);
      sessionStorage.setItem("lpEmail", body.user.email);
      message.textContent = "";
      await showDashboard();
    });
    document.getElementById("forgot").addEventListener("click", async () => {
      const email = document.getElementById("login-email").value;
      const r = await fetch("/api/auth/request-password-reset", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ email }) });
      const body = await r.json();
      document.getElementById("login-message").textContent = r.ok ? body.message : body.error;
    });
    document.getElementById("logout").addEventListener("click", () => {
      sessionStorage.removeItem("lpToken");
      document.getElementById("login").hidden = false;
      document.getElementById("lp-dashboard").hidden = true;
    });

    loadPortfolio();
    loadSignals().finally(connect);
    showDashboard();
    """#

    /// The page of a password-reset link, `/reset-password?token=…`: a new password (twice), posted to
    /// `/api/auth/reset-password`; the answer (or the error's reason) is shown on the page.
    static let resetPage = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="referrer" content="no-referrer">
    <title>Reset your OneLPM password</title>
    <link rel="stylesheet" href="/static/app.css">
    </head>
    <body>
    <header><h1>OneLPM</h1></header>
    <section id="lp">
      <h2>Choose a new password</h2>
      <form id="reset">
        <label>New password <input id="password" type="password" minlength="10" autocomplete="new-password" required></label>
        <label>Repeat it <input id="repeat" type="password" minlength="10" autocomplete="new-password" required></label>
        <button type="submit">Set password</button>
      </form>
      <p id="message" role="status"></p>
    </section>
    <script>
    "use strict";
    const token = new URLSearchParams(location.search).get("token") || "";
    document.getElementById("reset").addEventListener("submit", async (event) => {
      event.preventDefault();
      const password = document.getElementById("password").value;
      const message = document.getElementById("message");
      if (password !== document.getElementById("repeat").value) { message.textContent = "The two passwords differ."; return; }
      const r = await fetch("/api/auth/reset-password", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token, password }) });
      const body = await r.json();
      message.textContent = r.ok ? body.message + ". You can log in with it in the app." : body.error;
      document.body.dataset.result = r.ok ? "done" : "error";
    });
    </script>
    </body>
    </html>
    """#
}
