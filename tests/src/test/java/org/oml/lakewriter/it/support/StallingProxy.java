package org.oml.lakewriter.it.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in the test that can stop forwarding without closing anything: after {@link
 * #stall()} both directions keep their sockets open and drop nothing, they just stop moving bytes.
 * To the client this is a half-open connection (a peer that vanished behind a firewall or a dead
 * NAT entry): no RST, no FIN, reads that never return.
 */
public final class StallingProxy implements AutoCloseable {
  private final ServerSocket server;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean stalled;

  public StallingProxy(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::acceptLoop, "stalling-proxy-accept");
    accept.setDaemon(true);
    accept.start();
  }

  public int port() {
    return server.getLocalPort();
  }

  /** From now on, no byte moves in either direction; connections stay open. */
  public void stall() {
    stalled = true;
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket target = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        sockets.add(client);
        sockets.add(target);
        pump(client.getInputStream(), target.getOutputStream());
        pump(target.getInputStream(), client.getOutputStream());
      } catch (IOException e) {
        // closed
      }
    }
  }

  private void pump(InputStream in, OutputStream out) {
    Thread t =
        new Thread(
            () -> {
              byte[] buf = new byte[8192];
              try {
                int n;
                while ((n = in.read(buf)) >= 0) {
                  while (stalled) {
                    Thread.sleep(50); // hold the bytes: the peer never sees them
                  }
                  out.write(buf, 0, n);
                  out.flush();
                }
              } catch (IOException | InterruptedException e) {
                // closed
              }
            },
            "stalling-proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
  }
}
