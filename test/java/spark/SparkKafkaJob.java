import org.apache.spark.sql.SparkSession;

/**
 * A real OpenLineage producer that is not ours: Apache Spark in local mode with the OpenLineage Spark
 * listener (io.openlineage:openlineage-spark), configured as its users configure it (spark.openlineage.*
 * settings, the HTTP transport to lineage-svc's /api/v1/lineage). One batch job reads a Kafka topic
 * and writes its values, upper-cased, to another topic; the listener reports the run with its kafka://
 * input and output datasets.
 *
 * Run from source by test/kafka/openLineageSpark.test.ts (java SparkKafkaJob.java, with the jars of
 * pom.xml on the classpath). Arguments: Kafka bootstrap (host:port), input topic, output topic,
 * lineage-svc base URL, OpenLineage job namespace.
 */
public class SparkKafkaJob {
  public static void main(String[] arguments) {
    String bootstrap = arguments[0];
    String inputTopic = arguments[1];
    String outputTopic = arguments[2];
    String lineageUrl = arguments[3];
    String namespace = arguments[4];
    SparkSession spark =
        SparkSession.builder()
            .master("local[1]")
            .appName("lineage-svc-spark-kafka")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "1")
            .config("spark.driver.host", "127.0.0.1")
            .config("spark.driver.bindAddress", "127.0.0.1")
            .config("spark.extraListeners", "io.openlineage.spark.agent.OpenLineageSparkListener")
            .config("spark.openlineage.transport.type", "http")
            .config("spark.openlineage.transport.url", lineageUrl)
            .config("spark.openlineage.transport.endpoint", "/api/v1/lineage")
            .config("spark.openlineage.namespace", namespace)
            .getOrCreate();
    spark
        .read()
        .format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", inputTopic)
        .load()
        .selectExpr("key", "upper(CAST(value AS STRING)) AS value")
        .write()
        .format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("topic", outputTopic)
        .save();
    spark.stop();
    System.out.println("done");
  }
}
