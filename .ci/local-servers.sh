#!/usr/bin/env bash
# Sourced by .ci/run: when the machine's own PostgreSQL (127.0.0.1:5432, user postgres with trust
# authentication) and Redis (127.0.0.1:6379) both answer, exports PUNCTUAL_TEST_DATABASE_URL,
# PUNCTUAL_TEST_DATABASE_USER, PUNCTUAL_TEST_DATABASE_PASSWORD and PUNCTUAL_TEST_REDIS_URL, so the
# suite's store-facing integration tests run against them (PostgreSQL 15 and Redis 7 on the machines
# that build Punctual today: what users run); otherwise it says so and the tests use the embedded
# PostgreSQL 18 and Redis 6.2. Each test works in databases and key prefixes of its own (TestStores)
# and removes only those: nothing else on the servers is read, flushed or dropped.
#
# Settings (environment): PUNCTUAL_LOCAL_PG_HOST, PUNCTUAL_LOCAL_PG_PORT, PUNCTUAL_LOCAL_PG_USER,
# PUNCTUAL_LOCAL_REDIS_HOST, PUNCTUAL_LOCAL_REDIS_PORT; PUNCTUAL_LOCAL_SERVERS=0 keeps the embedded
# servers. See docs/supported-versions.md.

# Redis's answer to one command sent over bash's /dev/tcp (first line, or the bulk body), or nothing.
punctual_redis_say() {
  local host="$1" port="$2" command="$3" reply="" line
  (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null || return 0
  exec 3<>"/dev/tcp/$host/$port" || return 0
  printf '%s\r\n' "$command" >&3
  if IFS= read -r -t 3 line <&3; then
    reply="$line"
    if [[ $line == \$* ]]; then
      reply=""
      while IFS= read -r -t 1 line <&3; do reply+="$line"$'\n'; done
    fi
  fi
  exec 3<&- 3>&- || true
  printf '%s' "$reply"
}

punctual_local_servers() {
  local pg_host="${PUNCTUAL_LOCAL_PG_HOST:-127.0.0.1}" pg_port="${PUNCTUAL_LOCAL_PG_PORT:-5432}"
  local pg_user="${PUNCTUAL_LOCAL_PG_USER:-postgres}"
  local redis_host="${PUNCTUAL_LOCAL_REDIS_HOST:-127.0.0.1}" redis_port="${PUNCTUAL_LOCAL_REDIS_PORT:-6379}"
  if [ "${PUNCTUAL_LOCAL_SERVERS:-1}" = "0" ]; then
    echo "test servers: the embedded PostgreSQL and Redis (PUNCTUAL_LOCAL_SERVERS=0)"
    return 0
  fi
  if ! (exec 3<>"/dev/tcp/$pg_host/$pg_port") 2>/dev/null || ! command -v psql >/dev/null 2>&1 ||
    ! psql -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres -w -Atc 'SELECT 1' >/dev/null 2>&1; then
    echo "test servers: no PostgreSQL answering as $pg_user at $pg_host:$pg_port without a password" \
      "(or no psql); the tests use the embedded PostgreSQL and Redis"
    return 0
  fi
  if [[ "$(punctual_redis_say "$redis_host" "$redis_port" PING)" != +PONG* ]]; then
    echo "test servers: no Redis answering PING at $redis_host:$redis_port;" \
      "the tests use the embedded PostgreSQL and Redis"
    return 0
  fi
  local pg_version redis_version
  pg_version="$(psql -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres -w -Atc 'SHOW server_version')"
  redis_version="$(punctual_redis_say "$redis_host" "$redis_port" 'INFO server' | tr -d '\r' |
    sed -n 's/^redis_version://p')"
  echo "test servers: the machine's PostgreSQL $pg_version at $pg_host:$pg_port and Redis" \
    "${redis_version:-?} at $redis_host:$redis_port"
  export PUNCTUAL_TEST_DATABASE_URL="jdbc:postgresql://$pg_host:$pg_port/postgres"
  export PUNCTUAL_TEST_DATABASE_USER="$pg_user"
  export PUNCTUAL_TEST_DATABASE_PASSWORD=""
  export PUNCTUAL_TEST_REDIS_URL="redis://$redis_host:$redis_port"
}
