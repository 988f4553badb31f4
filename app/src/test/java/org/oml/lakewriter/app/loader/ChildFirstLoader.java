package org.oml.lakewriter.app.loader;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;

/**
 * A user-code class loader as a Flink session cluster gives each job: child-first over the whole
 * test class path, parent-first only for Java, Flink, logging and the test's own probe interface
 * (Flink's {@code classloader.parent-first-patterns.default}). Each instance is "the next job".
 */
final class ChildFirstLoader extends URLClassLoader {
  private static final String[] PARENT_FIRST = {
    "java.", "javax.", "jdk.", "sun.", "org.apache.flink.", "org.slf4j", "org.apache.log4j",
    "org.apache.logging", "org.junit.", "org.assertj."
  };

  ChildFirstLoader() {
    super(classPath(), ChildFirstLoader.class.getClassLoader());
  }

  @Override
  protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
    synchronized (getClassLoadingLock(name)) {
      Class<?> c = findLoadedClass(name);
      if (c == null) {
        if (parentFirst(name)) {
          return super.loadClass(name, resolve);
        }
        try {
          c = findClass(name);
        } catch (ClassNotFoundException e) {
          return super.loadClass(name, resolve);
        }
      }
      if (resolve) {
        resolveClass(c);
      }
      return c;
    }
  }

  private static boolean parentFirst(String name) {
    for (String p : PARENT_FIRST) {
      if (name.startsWith(p)) {
        return true;
      }
    }
    return false;
  }

  private static URL[] classPath() {
    List<URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      try {
        urls.add(new File(entry).toURI().toURL());
      } catch (MalformedURLException e) {
        throw new IllegalStateException(e);
      }
    }
    return urls.toArray(URL[]::new);
  }
}
