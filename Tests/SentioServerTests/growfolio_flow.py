"""The Growfolio manual's minimal flow, played by a third-party client (the `websockets` package) against a live
`sentio serve` with the investing app on (issue 32). Usage: growfolio_flow.py BASE_URL INGEST_TOKEN KEY_PEM AUDIENCE

Signs RS256 identity tokens with the test key (kid "test-key-1", the server's JWKS), signs in, deposits, creates a
DCA schedule, connects, reads the welcome, subscribes to quotes, posts bars, sees quote_updated and the schedule
execute as order_created -> order_fill -> dca_executed, withdraws and sells the position (order_fill, position_closed,
cash_changed, transfer_complete at the next bar), answers heartbeats, refreshes the token; provokes the close
codes 4001, 4003, 4005, 4002 (after token_expiring) and 1008 (no pong); then keeps one socket open, prints
"awaiting shutdown" and expects server_shutdown then 4006. Exits non-zero on the first failed check.
"""
import asyncio
import json
import re
import sys
import time
import urllib.request
import uuid

import jwt
import websockets
from websockets.asyncio.client import connect

BASE, INGEST, KEY_PEM, AUDIENCE = sys.argv[1:5]
WS = BASE.replace("http://", "ws://") + "/api/v1/ws"
KEY = open(KEY_PEM).read()
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$")
checks = 0


def check(condition, what):
    global checks
    if not condition:
        raise AssertionError(what)
    checks += 1


def token(sub, expires_in=3600, kid="test-key-1"):
    now = int(time.time())
    claims = {"iss": "https://appleid.apple.com", "aud": AUDIENCE, "sub": sub, "iat": now, "exp": now + expires_in,
              "email": f"{sub}@privaterelay.example"}
    return jwt.encode(claims, KEY, algorithm="RS256", headers={"kid": kid})


def http(method, path, body=None, bearer=None, content_type="application/json"):
    data = body.encode() if isinstance(body, str) else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(BASE + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", content_type)
    if bearer:
        request.add_header("Authorization", "Bearer " + bearer)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def envelope(text):
    message = json.loads(text)
    check(set(message) == {"id", "type", "event", "timestamp", "data"}, f"envelope keys: {sorted(message)}")
    uuid.UUID(message["id"])
    check(message["type"] in ("event", "system", "ack", "error"), f"type {message['type']}")
    check(TIMESTAMP.match(message["timestamp"]) is not None, f"timestamp {message['timestamp']}")
    check(isinstance(message["data"], dict), "data is an object")
    return message


async def http_beside(ws, *args):
    """`http(*args)` on a thread while the socket keeps its heartbeat deadline (a pong every second meanwhile: on a
    loaded machine a few blocking calls in a row outlast interval + grace)."""
    call = asyncio.ensure_future(asyncio.to_thread(http, *args))
    while not call.done():
        await ws.send(json.dumps({"type": "pong"}))
        await asyncio.wait([call], timeout=1)
    return call.result()


async def read_until(ws, name, answer_heartbeats=True, seen=None, timeout=20):
    """The next message whose event (or type) is `name`; answers heartbeats with pong on the way."""
    deadline = time.monotonic() + timeout
    while True:
        text = await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline - time.monotonic()))
        message = envelope(text)
        key = message["event"] or message["type"]
        if seen is not None:
            seen.append(key)
        if message["event"] == "heartbeat" and answer_heartbeats:
            check(message["type"] == "system" and message["data"] == {"ping": True}, "heartbeat payload")
            await ws.send(json.dumps({"type": "pong"}))
        if key == name:
            return message


async def closed_with(url, code, what, read=True):
    async with connect(url) as ws:
        try:
            while read:
                await asyncio.wait_for(ws.recv(), timeout=20)
        except websockets.ConnectionClosed:
            pass
        await ws.wait_closed()
        check(ws.close_code == code, f"{what}: close code {ws.close_code}, expected {code}")


def bars_ndjson(start, days):
    lines = []
    for d in range(days):
        t = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(start + d * 86400))
        p = 50 * (1 + 0.01 * d)
        lines.append(json.dumps({"symbol": "GBPUSD", "timestamp": t, "open": 1.25, "high": 1.25, "low": 1.25, "close": 1.25, "volume": 0}))
        lines.append(json.dumps({"symbol": "TQQQ", "timestamp": t, "open": p, "high": p * 1.01, "low": p * 0.99, "close": p * 1.005, "volume": 1000}))
    return "\n".join(lines) + "\n"


async def main():
    # 1-2. Sign in (first sign-in: the name), as the app does after Sign in with Apple.
    identity = token("py-user")
    status, body = http("POST", "/api/v1/auth/token", {"identity_token": identity, "user_first_name": "Grace", "user_last_name": "Hopper"})
    check(status == 200, f"sign-in {status} {body}")
    check(set(body) == {"user_id", "email", "name", "alpaca_account_status"} and body["user_id"] == "py-user"
          and body["name"] == "Grace Hopper" and body["alpaca_account_status"] == "ACTIVE", f"sign-in body {body}")
    status, body = http("POST", "/api/v1/transfers", {"direction": "INCOMING", "amount": "500.00", "currency": "GBP"}, identity)
    check(status == 201 and body["status"] == "COMPLETE", f"deposit {status} {body}")
    status, schedule = http("POST", "/api/v1/dca/schedules", {"symbol": "TQQQ", "amount_gbp": "100", "every": "month", "start": "2025-01-01"}, identity)
    check(status == 201, f"schedule {status} {schedule}")

    # 3-4. Connect; the welcome.
    url = f"{WS}?token={identity}&device_type=ios&app_version=1.2.3"
    async with connect(url) as ws:
        welcome = envelope(await ws.recv())
        check(welcome["type"] == "system" and welcome["event"] is None, f"welcome {welcome}")
        check(set(welcome["data"]) == {"connection_id", "subscriptions", "heartbeat_interval"}, f"welcome data {welcome['data']}")
        uuid.UUID(welcome["data"]["connection_id"])
        check(welcome["data"]["subscriptions"] == ["orders", "positions", "account", "dca", "transfers"], "default subscriptions")
        interval = welcome["data"]["heartbeat_interval"]
        # 5. Subscribe to quotes (unknown fields ignored, symbols uppercased).
        await ws.send(json.dumps({"type": "subscribe", "channels": ["quotes"], "symbols": ["tqqq"], "client_hint": 1}))
        ack = await read_until(ws, "ack")
        check(ack["data"] == {"action": "subscribed", "channels": ["quotes"]}, f"ack {ack}")
        # A malformed message: an error, and the connection stays.
        await ws.send("{not json")
        error = await read_until(ws, "error")
        check(isinstance(error["data"].get("error"), str), f"error {error}")
        # Bars: quotes, then the schedule's order and execution.
        status, body = http("POST", "/api/v1/bars", bars_ndjson(1735689600, 3), INGEST, "application/x-ndjson")
        check(status == 200, f"bars {status} {body}")
        seen = []
        quote = await read_until(ws, "quote_updated", seen=seen)
        check(set(quote["data"]) == {"symbol", "price_usd", "price_gbp", "bid", "ask", "change_percent", "fx_rate", "timestamp"}
              and quote["data"]["symbol"] == "TQQQ" and quote["data"]["fx_rate"] == "1.250000", f"quote {quote}")
        check(float(quote["data"]["bid"]) < float(quote["data"]["price_usd"]) < float(quote["data"]["ask"]), "bid < price < ask")
        created = await read_until(ws, "order_created", seen=seen)
        fill = await read_until(ws, "order_fill", seen=seen)
        executed = await read_until(ws, "dca_executed", seen=seen)
        check(created["data"]["dca_schedule_id"] == schedule["id"] and created["data"]["status"] == "new", f"order_created {created}")
        check(fill["data"]["order_id"] == created["data"]["order_id"] and fill["data"]["status"] == "filled", f"order_fill {fill}")
        check(executed["data"]["order_id"] == created["data"]["order_id"] and executed["data"]["amount_gbp"] == "100.00", f"dca_executed {executed}")
        check(seen.index("order_created") < seen.index("order_fill") < seen.index("dca_executed"), f"order of events {seen}")
        # A withdrawal (pending until the next bar) and a sale of the whole position (Alpaca's close position): at the
        # next bar, order_fill (sell) -> position_closed -> cash_changed, then the withdrawal's transfer_complete.
        status, withdrawal = await http_beside(ws, "POST", "/api/v1/transfers", {"direction": "OUTGOING", "amount": "50", "currency": "GBP"}, identity)
        check(status == 202 and withdrawal["status"] == "PENDING" and withdrawal["direction"] == "OUTGOING", f"withdrawal {status} {withdrawal}")
        status, body = await http_beside(ws, "POST", "/api/v1/transfers", {"direction": "OUTGOING", "amount": "100000", "currency": "GBP"}, identity)
        check(status == 400 and body["error"].startswith("insufficient cash"), f"withdrawal over the cash {status} {body}")
        status, sale = await http_beside(ws, "DELETE", "/api/v1/positions/TQQQ", None, identity)
        check(status == 200 and sale["side"] == "sell" and sale["status"] == "new", f"close position {status} {sale}")
        status, body = await http_beside(ws, "DELETE", "/api/v1/positions/TQQQ?qty=1&percentage=10", None, identity)
        check(status == 400, f"qty and percentage {status} {body}")
        sold = await read_until(ws, "order_created")
        check(sold["data"]["order_id"] == sale["order_id"] and sold["data"]["side"] == "sell", f"sale's order_created {sold}")
        status, body = await http_beside(ws, "POST", "/api/v1/bars", bars_ndjson(1735689600 + 3 * 86400, 1), INGEST, "application/x-ndjson")
        check(status == 200, f"bars {status} {body}")
        seen = []
        fill = await read_until(ws, "order_fill", seen=seen)
        check(fill["data"]["order_id"] == sale["order_id"] and fill["data"]["side"] == "sell" and fill["data"]["status"] == "filled"
              and fill["data"]["filled_qty"] == executed["data"]["filled_qty"], f"sale's order_fill {fill}")
        closed = await read_until(ws, "position_closed", seen=seen)
        check(set(closed["data"]) == {"symbol", "quantity", "cost_gbp", "price_usd", "market_value_usd"}
              and closed["data"]["symbol"] == "TQQQ" and closed["data"]["quantity"] == "0.00000000", f"position_closed {closed}")
        cash = await read_until(ws, "cash_changed", seen=seen)
        check(set(cash["data"]) == {"currency", "cash_gbp", "cash_usd", "fx_rate"} and cash["data"]["currency"] == "GBP", f"cash_changed {cash}")
        complete = await read_until(ws, "transfer_complete", seen=seen)
        check(set(complete["data"]) == {"transfer_id", "direction", "amount", "currency", "status"}
              and complete["data"]["transfer_id"] == withdrawal["transfer_id"] and complete["data"]["direction"] == "OUTGOING"
              and complete["data"]["status"] == "COMPLETE" and complete["data"]["amount"] == "50.00", f"transfer_complete {complete}")
        check(seen.index("order_fill") < seen.index("position_closed") < seen.index("cash_changed") < seen.index("transfer_complete"), f"order of events {seen}")
        status, positions = await http_beside(ws, "GET", "/api/v1/positions", None, identity)
        check(status == 200 and positions["positions"] == [], f"positions after the sale {positions}")
        # 6. Heartbeats answered: the socket outlives interval + grace several times over.
        for _ in range(3):
            await read_until(ws, "heartbeat", timeout=interval * 5)
        # 7. Refresh the token.
        await ws.send(json.dumps({"type": "refresh_token", "token": token("py-user", 7200)}))
        refreshed = await read_until(ws, "token_refreshed")
        check(set(refreshed["data"]) == {"expires_at"} and TIMESTAMP.match(refreshed["data"]["expires_at"]), f"token_refreshed {refreshed}")
        await ws.send(json.dumps({"type": "refresh_token", "token": "nope"}))
        failed = await read_until(ws, "error")
        check(failed["data"]["error"].startswith("Token refresh failed: "), f"refresh failure {failed}")

    # Close codes.
    await closed_with(WS, 4001, "missing token")
    await closed_with(f"{WS}?token=not-a-jwt", 4001, "invalid token")
    await closed_with(f"{WS}?token={token('py-user', kid='unknown-kid')}", 4001, "unknown kid")
    await closed_with(f"{WS}?token={token('nobody-signed-in')}", 4003, "unknown user")
    async with connect(f"{WS}?token={token('py-user', expires_in=3)}") as ws:
        expiring = await read_until(ws, "token_expiring", timeout=10)
        check(set(expiring["data"]) == {"expires_in_seconds", "expires_at"} and 0 <= expiring["data"]["expires_in_seconds"] <= 3, f"token_expiring {expiring}")
        try:
            while True:
                message = envelope(await asyncio.wait_for(ws.recv(), timeout=20))
                check(message["event"] != "token_expiring", "token_expiring sent once")
                if message["event"] == "heartbeat":
                    await ws.send(json.dumps({"type": "pong"}))
        except websockets.ConnectionClosed:
            pass
        check(ws.close_code == 4002, f"expiry: close code {ws.close_code}")
    async with connect(url) as silent:  # never answers heartbeats
        try:
            while True:
                await asyncio.wait_for(silent.recv(), timeout=30)
        except websockets.ConnectionClosed:
            pass
        check(silent.close_code == 1008, f"no pong: close code {silent.close_code}")

    # --ws-max-connections (the runner gives 2): two open, the third is closed with 4005.
    async with connect(url) as first, connect(url) as second:
        await read_until(first, "system")
        await read_until(second, "system")
        await closed_with(url, 4005, "over the limit")
        # Shutdown: the runner shuts the server down once told; server_shutdown, then 4006.
        print("awaiting shutdown", flush=True)
        shutdown = await read_until(first, "server_shutdown", timeout=60)
        check(shutdown["type"] == "system" and shutdown["data"] == {"message": "Server is shutting down"}, f"server_shutdown {shutdown}")
        try:
            while True:
                await asyncio.wait_for(first.recv(), timeout=20)
        except websockets.ConnectionClosed:
            pass
        check(first.close_code == 4006, f"shutdown: close code {first.close_code}")
    print(f"{checks} passed, 0 failed", flush=True)


asyncio.run(main())
