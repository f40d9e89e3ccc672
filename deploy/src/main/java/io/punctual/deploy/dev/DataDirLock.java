package io.punctual.deploy.dev;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * An exclusive lock on a data directory ({@code punctual.lock}, an OS file lock released when the
 * process dies, however it dies), so two {@code punctual dev} never share one directory. Holding it
 * also proves that servers left running in the directory belong to a process that is gone.
 */
final class DataDirLock implements AutoCloseable {
  static final String FILE = "punctual.lock";

  private final FileChannel channel;
  private final FileLock lock;

  private DataDirLock(FileChannel channel, FileLock lock) {
    this.channel = channel;
    this.lock = lock;
  }

  /** Takes the lock or throws {@link IllegalStateException} if another process holds it. */
  static DataDirLock acquire(Path dataDir) {
    try {
      Files.createDirectories(dataDir);
      FileChannel channel =
          FileChannel.open(
              dataDir.resolve(FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        channel.close();
        throw new IllegalStateException(
            "another `punctual dev` is using "
                + dataDir
                + "; stop it first or point PUNCTUAL_DATA_DIR elsewhere");
      }
      return new DataDirLock(channel, lock);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot lock " + dataDir, e);
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
