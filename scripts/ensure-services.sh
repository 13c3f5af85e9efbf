#!/usr/bin/env bash
# CI only: makes sure the machine's Postgres (127.0.0.1:5432, trust, database `test`) and Redis
# (127.0.0.1:6379) answer before the tests run, so their tests cannot be skipped silently. Starts
# them when they are installed but down, installs them from Debian's packages when missing (as root).
set -euo pipefail

apt_install() {
  [ "$(id -u)" -eq 0 ] || { echo "ensure-services: not root, cannot install $*" >&2; return 1; }
  [ -f /var/lib/apt/lists/lock ] && ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1 || apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

wait_for() { # wait_for <what> <command...>: up to 20 s
  local what=$1; shift
  for _ in $(seq 1 40); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  echo "ensure-services: $what does not answer" >&2
  return 1
}

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432; }
if ! command -v pg_isready >/dev/null 2>&1 || ! pg_up; then
  command -v pg_ctlcluster >/dev/null 2>&1 || apt_install postgresql
  cluster=$(ls /etc/postgresql | sort -V | tail -1)
  pg_ctlcluster --skip-systemctl-redirect "$cluster" main start || true
  wait_for Postgres pg_up
  echo "ensure-services: started Postgres $cluster"
fi
# The tests connect as postgres or root over TCP, without a password, to database `test`.
as_pg() { if [ "$(id -u)" -eq 0 ]; then su postgres -c "$*"; else eval "$*"; fi; }
if ! psql -h 127.0.0.1 -U postgres -d test -Atc 'SELECT 1' >/dev/null 2>&1 && ! psql -h 127.0.0.1 -U root -d test -Atc 'SELECT 1' >/dev/null 2>&1; then
  as_pg "createdb -h 127.0.0.1 test" 2>/dev/null || as_pg "createdb test" || true
fi

redis_up() { [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = PONG ]; }
if ! command -v redis-cli >/dev/null 2>&1 || ! redis_up; then
  command -v redis-server >/dev/null 2>&1 || apt_install redis-server
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for Redis redis_up
  echo "ensure-services: started Redis"
fi

# nginx for the load-balancer test (test/e2e/nginx-lb.test.ts); it skips without it, so a failed install is not fatal.
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || apt_install nginx-light || echo "ensure-services: nginx not installed; the load-balancer test will skip" >&2
