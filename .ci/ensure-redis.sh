#!/usr/bin/env bash
# Makes sure Redis answers on 127.0.0.1:6379 for the bot's Redis tests: starts it with the machine's command when it
# does not, waits for it (at most 10 s), and fails loudly if it still does not answer. Never skips.
set -uo pipefail

HOST=127.0.0.1
PORT=6379

answers() {
  if command -v redis-cli >/dev/null 2>&1; then
    [ "$(redis-cli -h "$HOST" -p "$PORT" ping 2>/dev/null)" = "PONG" ]
  else
    # no redis-cli: a PING over a plain socket, answered +PONG within a second
    node -e '
      const socket = require("node:net").connect(Number(process.argv[2]), process.argv[1])
      const fail = () => process.exit(1)
      socket.setTimeout(1000, fail).on("error", fail)
      socket.on("connect", () => socket.write("PING\r\n"))
      socket.on("data", (data) => process.exit(data.toString().startsWith("+PONG") ? 0 : 1))
    ' "$HOST" "$PORT"
  fi
}

if answers; then
  echo "ensure-redis: Redis answers on $HOST:$PORT"
  exit 0
fi

echo "ensure-redis: Redis does not answer on $HOST:$PORT; starting it"
if ! command -v redis-server >/dev/null 2>&1; then
  echo "ensure-redis: FAILED: redis-server is not installed, and the Redis tests need Redis on $HOST:$PORT" >&2
  exit 1
fi
redis-server --daemonize yes --bind 127.0.0.1 -::1 --port "$PORT" --save "" --appendonly no \
  --dir /var/lib/redis --logfile /var/log/redis/ci.log

for _ in $(seq 1 50); do
  if answers; then
    echo "ensure-redis: Redis answers on $HOST:$PORT"
    exit 0
  fi
  sleep 0.2
done
echo "ensure-redis: FAILED: Redis still does not answer on $HOST:$PORT after 10 s (see /var/log/redis/ci.log)" >&2
exit 1
