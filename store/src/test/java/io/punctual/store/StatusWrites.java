package io.punctual.store;

import io.punctual.model.JobState;
import io.punctual.model.JobState.Transition;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the SQL of one resource and finds every write of a job's status in it: each {@code UPDATE
 * jobs ... SET status = ...} (the target must be a literal state, the WHERE clause must guard on
 * the source state with literals: {@code status = 'X'} or {@code status IN ('X', 'Y')}) and each
 * {@code INSERT INTO jobs} (its status a literal initial state, or a CASE choosing between them).
 * The (from, to) pairs found must be those of the transitions the file's header names ({@code --
 * transition: A, B}), and every one of them must be in {@link JobState.Transition}.
 */
final class StatusWrites {
  private StatusWrites() {}

  /** A move from one state to another, as a statement makes it. */
  record Pair(JobState from, JobState to) {
    @Override
    public String toString() {
      return from + " -> " + to;
    }
  }

  /** What one SQL text does to job statuses, and what is wrong with it (empty: nothing). */
  record Report(
      boolean writesStatus, Set<Pair> pairs, Set<Transition> declared, List<String> problems) {}

  private static final Pattern HEADER = Pattern.compile("(?im)^\\s*--\\s*transition:\\s*(.*)$");
  private static final Pattern UPDATE_JOBS =
      Pattern.compile("(?i)\\bUPDATE\\s+(?:ONLY\\s+)?jobs\\b");
  private static final Pattern UPDATE_HEAD =
      Pattern.compile(
          "(?is)\\AUPDATE\\s+(?:ONLY\\s+)?jobs(?:\\s+(?:AS\\s+)?(?!SET\\b)([a-z_]\\w*))?\\s+SET\\b");
  private static final Pattern INSERT_JOBS =
      Pattern.compile("(?i)\\bINSERT\\s+INTO\\s+(?:ONLY\\s+)?jobs\\b");
  private static final Pattern OTHER_WRITES =
      Pattern.compile("(?i)\\b(?:MERGE\\s+INTO|COPY)\\s+(?:ONLY\\s+)?jobs\\b");
  private static final Pattern LITERAL = Pattern.compile("'([A-Za-z_]+)'");
  private static final Pattern GUARD =
      Pattern.compile(
          "(?i)(?<![\\w.])(?:([a-z_]\\w*)\\.)?status\\s*(=|<>|!=|\\bNOT\\s+IN\\b|\\bIN\\b)\\s*");
  private static final Pattern CASE_OF_LITERALS =
      Pattern.compile(
          "(?is)\\ACASE\\s+WHEN\\s+[^']+?\\s+THEN\\s+'(\\w+)'\\s+ELSE\\s+'(\\w+)'\\s+END\\z");

  static Report read(String sql) {
    List<String> problems = new ArrayList<>();
    Set<Transition> declared = declared(sql, problems);
    String code = withoutComments(sql);
    Set<Pair> pairs = new LinkedHashSet<>();
    boolean writes = false;
    Matcher other = OTHER_WRITES.matcher(code);
    if (other.find()) {
      writes = true;
      problems.add("writes jobs in a way this check cannot read: " + other.group());
    }
    Matcher update = UPDATE_JOBS.matcher(code);
    while (update.find()) {
      String statement = statementFrom(code, update.start());
      writes |= readUpdate(statement, pairs, problems);
    }
    Matcher insert = INSERT_JOBS.matcher(code);
    while (insert.find()) {
      writes = true;
      readInsert(statementFrom(code, insert.start()), problems);
    }
    if (!pairs.isEmpty()) {
      for (Pair p : pairs) {
        if (!p.from().canMoveTo(p.to())) {
          problems.add("no transition in JobState.Transition leads " + p);
        }
      }
      if (declared.isEmpty()) {
        problems.add("writes " + pairs + " without a header naming its transitions");
      }
      Set<Pair> declaredPairs = new LinkedHashSet<>();
      for (Transition t : declared) {
        declaredPairs.add(new Pair(t.from(), t.to()));
      }
      if (!declaredPairs.equals(pairs)) {
        problems.add(
            "the header names " + declared + " (" + declaredPairs + ") but it writes " + pairs);
      }
    }
    return new Report(writes, pairs, declared, problems);
  }

  /** The transitions the header names; a name not in the table is a problem. */
  private static Set<Transition> declared(String sql, List<String> problems) {
    Set<Transition> out = EnumSet.noneOf(Transition.class);
    Matcher m = HEADER.matcher(sql);
    while (m.find()) {
      for (String name : m.group(1).split(",")) {
        String n = name.trim();
        if (n.isEmpty()) {
          continue;
        }
        try {
          out.add(Transition.valueOf(n));
        } catch (IllegalArgumentException e) {
          problems.add("the header names " + n + ", which is not in JobState.Transition");
        }
      }
    }
    return out;
  }

  /** Reads one UPDATE of jobs; returns whether it writes the status. */
  private static boolean readUpdate(String statement, Set<Pair> pairs, List<String> problems) {
    Matcher head = UPDATE_HEAD.matcher(statement);
    if (!head.find()) {
      problems.add("an UPDATE of jobs this check cannot read: " + firstLine(statement));
      return true;
    }
    String alias = head.group(1);
    String rest = statement.substring(head.end());
    int setEnd = topLevelKeyword(rest, "FROM", "WHERE", "RETURNING");
    String set = rest.substring(0, setEnd);
    boolean setsStatus = false;
    for (String assignment : splitTopLevel(set)) {
      int eq = assignment.indexOf('=');
      setsStatus |= mentionsStatus(eq < 0 ? assignment : assignment.substring(0, eq));
    }
    if (!setsStatus) {
      return false;
    }
    JobState to = null;
    for (String assignment : splitTopLevel(set)) {
      String a = assignment.trim();
      int eq = a.indexOf('=');
      String column = eq < 0 ? a : a.substring(0, eq).trim();
      if (column.startsWith("(")) {
        if (mentionsStatus(column)) {
          problems.add("sets status in a tuple: " + a);
        }
        continue;
      }
      if (!unqualified(column).equalsIgnoreCase("status")) {
        continue;
      }
      String value = a.substring(eq + 1).trim();
      JobState literal = literalState(value);
      if (literal == null) {
        problems.add("the target state is not a literal: status = " + value);
      } else {
        to = literal;
      }
    }
    int whereAt = topLevelKeyword(rest, "WHERE");
    if (whereAt == rest.length()) {
      problems.add("sets status without a WHERE clause guarding the source state");
      return true;
    }
    String where = rest.substring(whereAt + "WHERE".length());
    where = where.substring(0, topLevelKeyword(where, "RETURNING"));
    Set<JobState> from = guards(where, alias, problems);
    if (to != null) {
      for (JobState f : from) {
        pairs.add(new Pair(f, to));
      }
    }
    return true;
  }

  /** The source states a WHERE clause allows, each a literal in the one guard on status. */
  private static Set<JobState> guards(String where, String alias, List<String> problems) {
    Set<JobState> from = EnumSet.noneOf(JobState.class);
    if (Pattern.compile("(?i)\\bOR\\b").matcher(where).find()) {
      problems.add("a status write whose WHERE has an OR: its guard cannot be read for sure");
    }
    Matcher g = GUARD.matcher(where);
    int guards = 0;
    while (g.find()) {
      String qualifier = g.group(1);
      if (qualifier != null && alias != null && !qualifier.equalsIgnoreCase(alias)) {
        continue;
      }
      guards++;
      String op = g.group(2).toUpperCase(Locale.ROOT).replaceAll("\\s+", " ");
      String after = where.substring(g.end());
      if (op.equals("=")) {
        Matcher lit = Pattern.compile("\\A'([A-Za-z_]+)'").matcher(after);
        JobState s = lit.find() ? state(lit.group(1)) : null;
        if (s == null) {
          problems.add("the source state is not a literal: status = " + firstWord(after));
        } else {
          from.add(s);
        }
      } else if (op.equals("IN")) {
        if (!after.startsWith("(")) {
          problems.add("status IN without a list of literals");
          continue;
        }
        String list = after.substring(1, after.indexOf(')'));
        for (String item : list.split(",")) {
          JobState s = literalState(item.trim());
          if (s == null) {
            problems.add("the source state is not a literal: status IN (" + list + ")");
          } else {
            from.add(s);
          }
        }
      } else {
        problems.add("a negative guard on status (" + op + "): name the source states");
      }
    }
    if (guards == 0) {
      problems.add("sets status without guarding the source state (status = 'X' in its WHERE)");
    } else if (guards > 1) {
      problems.add("more than one guard on status in one WHERE");
    }
    return from;
  }

  private static void readInsert(String statement, List<String> problems) {
    int open = statement.indexOf('(');
    int close = open < 0 ? -1 : matching(statement, open);
    if (open < 0 || close < 0) {
      problems.add("an INSERT INTO jobs without a column list");
      return;
    }
    List<String> columns = splitTopLevel(statement.substring(open + 1, close));
    int index = -1;
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).trim().equalsIgnoreCase("status")) {
        index = i;
      }
    }
    if (index < 0) {
      problems.add("an INSERT INTO jobs without a status column");
      return;
    }
    String after = statement.substring(close + 1).trim();
    List<String> values;
    if (after.regionMatches(true, 0, "VALUES", 0, 6)) {
      int vOpen = after.indexOf('(');
      values = splitTopLevel(after.substring(vOpen + 1, matching(after, vOpen)));
    } else if (after.regionMatches(true, 0, "SELECT", 0, 6)) {
      String list = after.substring(6);
      values = splitTopLevel(list.substring(0, topLevelKeyword(list, "FROM")));
    } else {
      problems.add("an INSERT INTO jobs this check cannot read: " + firstLine(after));
      return;
    }
    if (values.size() != columns.size()) {
      problems.add("an INSERT INTO jobs whose values do not match its columns");
      return;
    }
    String value = values.get(index).trim();
    Set<JobState> states = EnumSet.noneOf(JobState.class);
    JobState literal = literalState(value);
    Matcher chosen = CASE_OF_LITERALS.matcher(value);
    if (literal != null) {
      states.add(literal);
    } else if (chosen.find() && state(chosen.group(1)) != null && state(chosen.group(2)) != null) {
      states.add(state(chosen.group(1)));
      states.add(state(chosen.group(2)));
    } else {
      problems.add("a new job's status is not a literal (or a CASE of literals): " + value);
    }
    Set<JobState> initial = EnumSet.of(JobState.initial(true), JobState.initial(false));
    if (!initial.containsAll(states)) {
      problems.add("a new job may only start " + initial + ", not " + states);
    }
  }

  // --- reading SQL text

  private static String withoutComments(String sql) {
    return sql.replaceAll("--[^\n]*", " ");
  }

  /** Where a scan of SQL text stops: {@code depth} counts the parentheses open at {@code i}. */
  private interface Stop {
    boolean at(int i, int depth);
  }

  /**
   * The first index from {@code from} on, outside quoted strings, where {@code stop} holds (after
   * the parenthesis at {@code i}, if any, is counted); -1 if none. The one scanner behind the
   * readers below.
   */
  private static int scan(String text, int from, Stop stop) {
    int depth = 0;
    boolean quoted = false;
    for (int i = from; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\'') {
        quoted = !quoted;
        continue;
      }
      if (quoted) {
        continue;
      }
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      }
      if (stop.at(i, depth)) {
        return i;
      }
    }
    return -1;
  }

  /** From {@code start} to the end of its statement: a ';' or a ')' closing what holds it. */
  private static String statementFrom(String code, int start) {
    int end = scan(code, start, (i, depth) -> depth < 0 || (depth == 0 && code.charAt(i) == ';'));
    return end < 0 ? code.substring(start) : code.substring(start, end);
  }

  /** Where the first of {@code keywords} stands outside parentheses (the length if nowhere). */
  private static int topLevelKeyword(String text, String... keywords) {
    int at =
        scan(
            text,
            0,
            (i, depth) -> {
              if (depth != 0 || (i > 0 && isWord(text.charAt(i - 1)))) {
                return false;
              }
              for (String k : keywords) {
                if (text.regionMatches(true, i, k, 0, k.length())
                    && (i + k.length() == text.length() || !isWord(text.charAt(i + k.length())))) {
                  return true;
                }
              }
              return false;
            });
    return at < 0 ? text.length() : at;
  }

  /** {@code text} cut at its commas outside parentheses and quoted strings. */
  private static List<String> splitTopLevel(String text) {
    List<String> parts = new ArrayList<>();
    int from = 0;
    for (int comma;
        (comma = scan(text, from, (i, depth) -> depth == 0 && text.charAt(i) == ',')) >= 0; ) {
      parts.add(text.substring(from, comma));
      from = comma + 1;
    }
    parts.add(text.substring(from));
    return parts;
  }

  private static int matching(String text, int open) {
    int depth = 0;
    for (int i = open; i < text.length(); i++) {
      if (text.charAt(i) == '(') {
        depth++;
      } else if (text.charAt(i) == ')' && --depth == 0) {
        return i;
      }
    }
    return -1;
  }

  private static boolean isWord(char c) {
    return Character.isLetterOrDigit(c) || c == '_';
  }

  private static boolean mentionsStatus(String text) {
    return Pattern.compile("(?i)(?<![\\w])status(?![\\w])").matcher(text).find();
  }

  private static String unqualified(String column) {
    int dot = column.lastIndexOf('.');
    return dot < 0 ? column : column.substring(dot + 1);
  }

  /** The state a whole expression is, when it is one quoted state name; else null. */
  private static JobState literalState(String value) {
    Matcher m = LITERAL.matcher(value.trim());
    return m.matches() ? state(m.group(1)) : null;
  }

  private static JobState state(String name) {
    try {
      return JobState.valueOf(name);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static String firstLine(String text) {
    String t = text.strip();
    int nl = t.indexOf('\n');
    return nl < 0 ? t : t.substring(0, nl);
  }

  private static String firstWord(String text) {
    String t = text.strip();
    int end = 0;
    while (end < t.length() && !Character.isWhitespace(t.charAt(end))) {
      end++;
    }
    return t.substring(0, end);
  }
}
