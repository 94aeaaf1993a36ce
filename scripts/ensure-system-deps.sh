#!/usr/bin/env bash
# Installs the Debian packages the test suite needs (Chromium for browser tests; WebKitGTK's
# WebKitWebDriver, its MiniBrowser and Xvfb for the WebKit browser tests; OpenSSH server, OpenSSL
# and MariaDB server for verify tests; PgBouncer for the pooler tests; Redis server for the
# fault-injection suite; HAProxy and nginx for the balancer snippets; curl to run the API
# reference's samples) when they are missing, and
# starts the local PostgreSQL and Redis if they are down. A no-op on a machine that already has
# everything.
set -euo pipefail

need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
# webkit2gtk-driver brings WebKitWebDriver and, through libwebkit2gtk-4.1-0, MiniBrowser.
[ -x /usr/bin/WebKitWebDriver ] || need+=(webkit2gtk-driver)
ls /usr/lib/*/webkit2gtk-4.*/MiniBrowser >/dev/null 2>&1 || need+=(libwebkit2gtk-4.1-0)
[ -x /usr/bin/Xvfb ] || need+=(xvfb)
[ -x /usr/sbin/sshd ] || need+=(openssh-server)
command -v openssl >/dev/null || need+=(openssl)
command -v curl >/dev/null || need+=(curl)
command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || need+=(mariadb-server)
command -v pgbouncer >/dev/null || [ -x /usr/sbin/pgbouncer ] || need+=(pgbouncer)
# The fault-injection suite starts private redis-server processes.
command -v redis-server >/dev/null || need+=(redis-server)
# The ops suite runs the docs' HAProxy and nginx snippets (test/ops/balancers.test.ts).
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || need+=(haproxy)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)

if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "missing Debian packages: ${need[*]} (run: sudo apt-get install -y ${need[*]})" >&2
    exit 1
  fi
  echo "installing: ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if command -v pg_isready >/dev/null && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
fi
if command -v redis-cli >/dev/null && ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
fi
