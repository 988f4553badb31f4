import jdk.jfr.consumer.*;
import java.nio.file.*;
import java.util.*;
import java.util.regex.*;
public class Callers {
  public static void main(String[] a) throws Exception {
    Pattern target = Pattern.compile(a[1]); int depth = Integer.parseInt(a[2]);
    Map<String,Integer> c = new HashMap<>(); int total = 0;
    try (RecordingFile rf = new RecordingFile(Path.of(a[0]))) {
      while (rf.hasMoreEvents()) {
        RecordedEvent e = rf.readEvent();
        if (!e.getEventType().getName().equals("jdk.ExecutionSample")) continue;
        RecordedStackTrace st = e.getStackTrace(); if (st == null) continue;
        List<RecordedFrame> fr = st.getFrames();
        for (int i = 0; i < fr.size(); i++) {
          String n = fr.get(i).getMethod().getType().getName() + "." + fr.get(i).getMethod().getName();
          if (target.matcher(n).find()) {
            StringBuilder sb = new StringBuilder();
            for (int j = i + 1; j < Math.min(fr.size(), i + 1 + depth); j++) sb.append(fr.get(j).getMethod().getType().getName().replaceAll(".*\\.", "")).append('.').append(fr.get(j).getMethod().getName()).append(':').append(fr.get(j).getLineNumber()).append(" < ");
            c.merge(sb.toString(), 1, Integer::sum); total++; break;
          }
        }
      }
    }
    System.out.println("total " + total);
    c.entrySet().stream().sorted(Map.Entry.<String,Integer>comparingByValue().reversed()).limit(15).forEach(x -> System.out.println(x.getValue() + "  " + x.getKey()));
  }
}
