"""A third-party SignalR client (signalrcore, PyPI, pinned by the test) listening to the allowance hub.

Usage: signalr_family_client.py HUB_URL TOKEN negotiate|skip COUNT
Prints READY once the hub connection is open, then one JSON line per server invocation received
({"target": ..., "arguments": [...]}), and exits 0 after COUNT of them (exit 3 if they do not come within 120 s,
a hang guard, not a time limit on the server).
"""
import json
import sys
import threading

from signalrcore.hub_connection_builder import HubConnectionBuilder

url, token, mode, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
received = []
done = threading.Event()
lock = threading.Lock()


def handler(target):
    def on(arguments):
        with lock:
            received.append(target)
            print(json.dumps({"target": target, "arguments": arguments}), flush=True)
            if len(received) >= count:
                done.set()
    return on


options = {"access_token_factory": lambda: token}
if mode == "skip":
    options["skip_negotiation"] = True
connection = HubConnectionBuilder().with_url(url, options=options).build()
for target in ["TransactionCreated", "BalanceUpdated", "AllowancePaid", "GoalUpdated"]:
    connection.on(target, handler(target))
connection.on_open(lambda: print("READY", flush=True))
connection.start()
ok = done.wait(120)
connection.stop()
sys.exit(0 if ok else 3)
