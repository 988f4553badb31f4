import jdk.jfr.consumer.*;
import java.nio.file.*;
import java.util.*;
import java.util.regex.*;
/** For samples containing frame a[2], the chain of a[3] frames above it (callers), counted. */
public class Callers {
  public static void main(String[] a) throws Exception {
    Pattern target = Pattern.compile(a[1]); int depth = Integer.parseInt(a[2]);
    Map<String,Integer> c = new HashMap<>();
    try (RecordingFile rf = new RecordingFile(Path.of(a[0]))) {
      while (rf.hasMoreEvents()) {
        RecordedEvent e = rf.readEvent();
        if (!e.getEventType().getName().equals("jdk.ExecutionSample")) continue;
        RecordedStackTrace st = e.getStackTrace(); if (st == null) continue;
        List<RecordedFrame> fs = st.getFrames();
        for (int i = 0; i < fs.size(); i++) {
          String n = fs.get(i).getMethod().getType().getName() + "." + fs.get(i).getMethod().getName();
          if (target.matcher(n).find()) {
            StringBuilder sb = new StringBuilder();
            for (int j = i + 1; j < Math.min(fs.size(), i + 1 + depth); j++) sb.append(" < ").append(fs.get(j).getMethod().getType().getName().replaceAll(".*[.]", "")).append('.').append(fs.get(j).getMethod().getName());
            c.merge(sb.toString(), 1, Integer::sum); break;
          }
        }
      }
    }
    c.entrySet().stream().sorted((x, y) -> y.getValue() - x.getValue()).limit(15).forEach(en -> System.out.println(en.getValue() + en.getKey()));
  }
}
