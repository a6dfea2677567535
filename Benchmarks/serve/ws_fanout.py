"""1,000 WebSocket clients on /ws/signals: latency from an ingested bar to each client's signal_update.

For each of BARS rounds, one new TQQQ bar (a day after the last served one) is POSTed; every client records when
the matching signal_update (by timestamp) arrives. The round's latency is the time from just before the POST to
the *last* client's receipt; p50/p99/max are over rounds (and over all deliveries). RSS is read from /proc.
Usage: ws_fanout.py URL SERVER_PID CLIENTS BARS
"""
import asyncio, calendar, json, sys, time, urllib.request
import websockets

URL, PID, CLIENTS, BARS = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
WS = URL.replace("http://", "ws://") + "/ws/signals"

def rss():
    for line in open(f"/proc/{PID}/status"):
        if line.startswith("VmRSS"):
            return line.split(None, 1)[1].strip()

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]

async def client(i, ready, arrivals):
    async with websockets.connect(WS, max_queue=None, open_timeout=60, ping_interval=None) as ws:
        ready.set_result(True) if not ready.done() else None
        async for text in ws:
            m = json.loads(text)
            arrivals.setdefault(m["data"]["signal"]["timestamp"], []).append(time.perf_counter())

async def main():
    detail = json.load(urllib.request.urlopen(URL + "/api/v1/symbols/TQQQ?timeframe=1D"))
    last = detail["historicalData"][-1]
    t = calendar.timegm(time.strptime(last["timestamp"], "%Y-%m-%dT%H:%M:%SZ"))
    arrivals, tasks = {}, []
    for i in range(CLIENTS):
        ready = asyncio.get_running_loop().create_future()
        tasks.append(asyncio.create_task(client(i, ready, arrivals)))
        await ready
    await asyncio.sleep(1)
    print(f"== {CLIENTS} clients connected; server RSS {rss()}")
    rounds, deliveries = [], []
    price = last["close"]
    for k in range(BARS):
        t += 86400
        ts = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
        bar = {"symbol": "TQQQ", "timestamp": ts, "open": price, "high": price * 1.01, "low": price * 0.99, "close": price, "volume": 1000000}
        req = urllib.request.Request(URL + "/api/v1/bars", data=json.dumps(bar).encode(), method="POST",
                                     headers={"Authorization": "Bearer bench-token"})
        start = time.perf_counter()
        await asyncio.to_thread(lambda: urllib.request.urlopen(req).read())
        deadline = time.perf_counter() + 10
        while len(arrivals.get(ts, [])) < CLIENTS and time.perf_counter() < deadline:
            await asyncio.sleep(0.001)
        got = arrivals.get(ts, [])
        if len(got) < CLIENTS:
            print(f"round {k}: only {len(got)} of {CLIENTS} clients got the update")
        if got:
            rounds.append((max(got) - start) * 1000)
            deliveries += [(x - start) * 1000 for x in got]
        await asyncio.sleep(0.2)
    print(f"== bar → last client's signal_update, over {len(rounds)} rounds (ms): p50 {pct(rounds, 50):.1f}  p99 {pct(rounds, 99):.1f}  max {max(rounds):.1f}")
    print(f"== bar → each delivery, {len(deliveries)} deliveries (ms): p50 {pct(deliveries, 50):.1f}  p99 {pct(deliveries, 99):.1f}")
    print(f"== server RSS with {CLIENTS} clients: {rss()}")
    for task in tasks:
        task.cancel()

asyncio.run(main())
