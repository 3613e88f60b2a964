import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import java.nio.file.Path;

/**
 * Helm's lint and template of a chart, for test/deploy/helmChart.test.ts (helm-java: Helm's Go code
 * in a native library).
 *
 * <pre>
 *   java -cp JARS HelmCheck.java lint CHART                    # Helm's messages; exit 1 when it failed
 *   java -cp JARS HelmCheck.java template CHART [KEY=VALUE...]  # the rendered manifests on stdout
 * </pre>
 *
 * Exit 2 with one line on stderr when Helm refuses the chart or the values.
 */
public class HelmCheck {
  public static void main(String[] args) {
    Path chart = Path.of(args[1]);
    try {
      if (args[0].equals("lint")) {
        LintResult result = new Helm(chart).lint().strict().call();
        result.getMessages().forEach(System.out::println);
        System.exit(result.isFailed() ? 1 : 0);
      }
      var template = new Helm(chart).template().withName("lineage");
      for (int i = 2; i < args.length; i++) {
        int at = args[i].indexOf('=');
        template = template.set(args[i].substring(0, at), args[i].substring(at + 1));
      }
      System.out.print(template.call());
    } catch (RuntimeException error) {
      System.err.println(String.valueOf(error.getMessage()).replace('\n', ' '));
      System.exit(2);
    }
  }
}
