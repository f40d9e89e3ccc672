# shellcheck shell=bash
# Sourced by ./punctual, ./mvnw and .ci/run: finds a JDK >= 21 and exports JAVA_HOME.
# Order: $JAVA_HOME if it is >= 21, else the first JDK >= 21 under /usr/lib/jvm,
# else the `java` on PATH if it is >= 21; otherwise it prints why and returns 1.

PUNCTUAL_MIN_JAVA=21

# Prints the feature version (8, 17, 21, 25...) of the java binary $1, or nothing.
punctual_java_version() {
  local java="$1" spec
  [ -x "$java" ] || return 0
  spec="$("$java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = *//p' | head -n 1)"
  case "$spec" in
    1.*) echo "${spec#1.}" ;;
    *) echo "$spec" ;;
  esac
}

# True if $1 is a Java home whose java is >= 21 (and, with $2 = jdk, which has javac).
punctual_is_java_home() {
  local home="$1" need="${2:-}" version
  [ -n "$home" ] && [ -x "$home/bin/java" ] || return 1
  if [ "$need" = jdk ] && [ ! -x "$home/bin/javac" ]; then
    return 1
  fi
  version="$(punctual_java_version "$home/bin/java")"
  [ -n "$version" ] && [ "$version" -ge "$PUNCTUAL_MIN_JAVA" ] 2>/dev/null
}

# Exports JAVA_HOME (a JDK >= 21) or explains what is missing and returns 1.
punctual_java_home() {
  local candidate java_on_path
  if punctual_is_java_home "${JAVA_HOME:-}" jdk; then
    export JAVA_HOME
    return 0
  fi
  for candidate in /usr/lib/jvm/*; do
    [ -d "$candidate" ] || continue
    if punctual_is_java_home "$candidate" jdk; then
      JAVA_HOME="$candidate"
      export JAVA_HOME
      return 0
    fi
  done
  java_on_path="$(command -v java 2>/dev/null || true)"
  if [ -n "$java_on_path" ]; then
    candidate="$(dirname "$(dirname "$(readlink -f "$java_on_path")")")"
    if punctual_is_java_home "$candidate" jdk; then
      JAVA_HOME="$candidate"
      export JAVA_HOME
      return 0
    fi
  fi
  {
    echo "punctual: no JDK ${PUNCTUAL_MIN_JAVA} or newer found."
    echo "  looked at: JAVA_HOME=${JAVA_HOME:-<unset>}, /usr/lib/jvm/*, java on PATH (${java_on_path:-none})"
    echo "  install one (e.g. Temurin 21 or 25) and set JAVA_HOME to it."
  } >&2
  return 1
}
