package io.punctual.queue.redis;

import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A Lua script kept as a {@code .lua} resource, run by its SHA and re-sent in full when Redis does
 * not know it (after a restart or SCRIPT FLUSH).
 */
public final class LuaScript {
  private final String source;
  private final String sha;
  private final ScriptOutputType outputType;

  private LuaScript(String source, ScriptOutputType outputType) {
    this.source = source;
    this.outputType = outputType;
    this.sha = sha1(source);
  }

  /** Loads {@code name} from the resources beside {@code owner}. */
  public static LuaScript load(Class<?> owner, String name, ScriptOutputType outputType) {
    try (InputStream in = owner.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing script " + name + " beside " + owner.getName());
      }
      return new LuaScript(new String(in.readAllBytes(), StandardCharsets.UTF_8), outputType);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The script's SHA-1, by which Redis knows it once loaded. */
  public String sha() {
    return sha;
  }

  /**
   * Runs the script (by its SHA-1, loading it if the server lost it). The result's type follows the
   * script's output type, which only the caller knows: the type parameter states it at the call.
   */
  @SuppressWarnings("TypeParameterUnusedInFormals") // the output type is the script's, see above
  public <T> T run(RedisClusterCommands<String, String> redis, String[] keys, String... args) {
    try {
      return redis.evalsha(sha, outputType, keys, args);
    } catch (RedisNoScriptException e) {
      return redis.eval(source, outputType, keys, args);
    }
  }

  public <T> CompletionStage<T> runAsync(
      RedisClusterAsyncCommands<String, String> redis, String[] keys, String... args) {
    return orSourceOnNoScript(redis.<T>evalsha(sha, outputType, keys, args), redis, keys, args);
  }

  /**
   * {@code bySha}, a call of this script by its SHA with these keys and arguments, or, where Redis
   * answered NOSCRIPT (after a restart or SCRIPT FLUSH), the same call sent with the full source.
   */
  public <T> CompletionStage<T> orSourceOnNoScript(
      CompletionStage<T> bySha,
      RedisClusterAsyncCommands<String, String> redis,
      String[] keys,
      String... args) {
    return bySha.exceptionallyCompose(
        error ->
            error instanceof RedisNoScriptException
                    || error.getCause() instanceof RedisNoScriptException
                ? redis.<T>eval(source, outputType, keys, args)
                : CompletableFuture.failedStage(error));
  }

  private static String sha1(String text) {
    try {
      byte[] digest =
          java.security.MessageDigest.getInstance("SHA-1")
              .digest(text.getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder(40);
      for (byte b : digest) {
        hex.append(String.format("%02x", b));
      }
      return hex.toString();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
