import io.openlineage.client.Clients;
import io.openlineage.client.OpenLineage;
import io.openlineage.client.OpenLineageClient;
import java.net.URI;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.UUID;

/**
 * A producer of OpenLineage events that is not lineage-svc: the official OpenLineage Java client
 * (io.openlineage:openlineage-java), configured the way its users configure it, by the YAML file that
 * OPENLINEAGE_CONFIG names (its HTTP or Kafka transport), emits one run of a job that reads and
 * writes Kafka topics and a file: a START and a COMPLETE RunEvent with the same runId.
 *
 * Run from source by test/kafka/openLineageJavaClient.test.ts (java EmitOpenLineage.java, with the
 * jars of pom.xml on the classpath). Arguments: job namespace, job name, Kafka dataset namespace
 * (kafka://host:port), input topic, output topic. Prints the runId on stdout.
 */
public class EmitOpenLineage {
  public static void main(String[] arguments) throws Exception {
    String jobNamespace = arguments[0];
    String jobName = arguments[1];
    String kafkaNamespace = arguments[2];
    String inputTopic = arguments[3];
    String outputTopic = arguments[4];

    OpenLineage openLineage =
        new OpenLineage(URI.create("https://github.com/OpenLineage/OpenLineage/tree/main/client/java"));
    UUID runId = UUID.randomUUID();
    OpenLineage.Run run = openLineage.newRunBuilder().runId(runId).build();
    OpenLineage.Job job = openLineage.newJobBuilder().namespace(jobNamespace).name(jobName).build();
    List<OpenLineage.InputDataset> inputs =
        List.of(openLineage.newInputDatasetBuilder().namespace(kafkaNamespace).name(inputTopic).build());
    List<OpenLineage.OutputDataset> outputs =
        List.of(
            openLineage.newOutputDatasetBuilder().namespace(kafkaNamespace).name(outputTopic).build(),
            openLineage.newOutputDatasetBuilder().namespace("file").name("/tmp/" + jobName + "/part-0.parquet").build());

    try (OpenLineageClient client = Clients.newClient()) {
      for (OpenLineage.RunEvent.EventType type :
          List.of(OpenLineage.RunEvent.EventType.START, OpenLineage.RunEvent.EventType.COMPLETE)) {
        client.emit(
            openLineage
                .newRunEventBuilder()
                .eventType(type)
                .eventTime(ZonedDateTime.now())
                .run(run)
                .job(job)
                .inputs(inputs)
                .outputs(outputs)
                .build());
      }
    }
    System.out.println(runId);
  }
}
