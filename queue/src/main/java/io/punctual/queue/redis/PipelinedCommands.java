package io.punctual.queue.redis;

import io.lettuce.core.SetArgs;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * One command per key, all handed to a connection in one write: one event-loop task and one flush
 * for the lot, where the async API's command-at-a-time writes cost a task, a selector wake-up and
 * often a system call each. Each key keeps its own command (and so its own cluster slot); replies
 * come back in order, one future per key.
 */
public final class PipelinedCommands {
  private static final StringCodec CODEC = Utf8Codec.INSTANCE;

  private PipelinedCommands() {}

  /** {@code SET key value <args>} for each key; each future says whether Redis answered OK. */
  public static List<CompletionStage<Boolean>> set(
      RedisConnection node, List<String> keys, String value, SetArgs setArgs) {
    return dispatch(
        node,
        keys,
        key -> {
          CommandArgs<String, String> args = new CommandArgs<>(CODEC).addKey(key).addValue(value);
          setArgs.build(args);
          return new Command<>(CommandType.SET, new StatusOutput<>(CODEC), args);
        },
        "OK"::equals);
  }

  /** {@code EXISTS key} for each key. */
  public static List<CompletionStage<Boolean>> exists(RedisConnection node, List<String> keys) {
    return dispatch(
        node,
        keys,
        key ->
            new Command<>(
                CommandType.EXISTS,
                new IntegerOutput<>(CODEC),
                new CommandArgs<>(CODEC).addKey(key)),
        n -> n != null && n > 0);
  }

  /**
   * The script once per key ({@code KEYS[1]} = the key, {@code ARGV} = {@code args}) by its SHA; a
   * call Redis answers NOSCRIPT is sent again in full ({@link LuaScript#orSourceOnNoScript}). For
   * scripts returning an integer; each future says whether the script returned 1.
   */
  public static List<CompletionStage<Boolean>> evalshaReturnsOne(
      RedisConnection node, LuaScript script, List<String> keys, String... args) {
    List<CompletionStage<Long>> bySha =
        dispatch(
            node,
            keys,
            key -> {
              CommandArgs<String, String> a =
                  new CommandArgs<>(CODEC).add(script.sha()).add(1).addKey(key);
              for (String arg : args) {
                a.addValue(arg);
              }
              return new Command<>(CommandType.EVALSHA, new IntegerOutput<>(CODEC), a);
            },
            Function.identity());
    List<CompletionStage<Boolean>> out = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      out.add(
          script
              .orSourceOnNoScript(bySha.get(i), node.async(), new String[] {keys.get(i)}, args)
              .thenApply(v -> v != null && v == 1L));
    }
    return out;
  }

  private static <T, R> List<CompletionStage<R>> dispatch(
      RedisConnection node,
      List<String> keys,
      Function<String, RedisCommand<String, String, T>> command,
      Function<T, R> reply) {
    List<AsyncCommand<String, String, T>> commands = new ArrayList<>(keys.size());
    for (String key : keys) {
      commands.add(new AsyncCommand<>(command.apply(key)));
    }
    node.stateful().dispatch(commands);
    List<CompletionStage<R>> out = new ArrayList<>(commands.size());
    for (AsyncCommand<String, String, T> c : commands) {
      out.add(c.thenApply(reply));
    }
    return out;
  }
}
