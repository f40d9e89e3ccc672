package io.punctual.alerter.send;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.punctual.common.json.Json;
import org.junit.jupiter.api.Test;

class SlackMessageTest {
  @Test
  void mentionsLinksAndEntitiesInTheTextShowLiterally() {
    String summary =
        "FIRING: Punctual alert \"a&b\" (job_failed) in namespace default,"
            + " type <!channel> <https://evil.example|click here> <@U123> &amp;";

    JsonNode body = Json.readTree(SlackMessage.body(summary, "r:<!here>:i:firing"));

    assertThat(body.size()).isEqualTo(1);
    assertThat(body.path("text").asText())
        .isEqualTo(
            "FIRING: Punctual alert \"a&amp;b\" (job_failed) in namespace default,"
                + " type &lt;!channel&gt; &lt;https://evil.example|click here&gt; &lt;@U123&gt;"
                + " &amp;amp; (dedup key r:&lt;!here&gt;:i:firing)")
        .doesNotContain("<", ">");
  }

  @Test
  void onlyTheThreeCharactersSlackReadsAreEscaped() {
    assertThat(SlackMessage.escape("plain text: \"quotes\", 'apostrophes', |pipes|, *bold*"))
        .isEqualTo("plain text: \"quotes\", 'apostrophes', |pipes|, *bold*");
    assertThat(SlackMessage.escape("<>&")).isEqualTo("&lt;&gt;&amp;");
    assertThat(SlackMessage.escape("")).isEmpty();
  }
}
