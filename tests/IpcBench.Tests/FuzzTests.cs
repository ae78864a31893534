using System.Buffers.Binary;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using IpcBench.Contract;
using IpcBench.Kit.Framing;
using IpcBench.Reporting;
using IpcBench.Reporting.Charts;
using IpcBench.Reporting.Comparison;
using IpcBench.Reporting.Writers;
using IpcBench.Transports.SharedMemory;

namespace IpcBench.Tests;

/// <summary>
/// Generated and mutated input for the readers that take bytes from someone else: the length-prefix decoder (from a
/// peer), the shared-memory channel's header check (from a file in /dev/shm), and the results reader behind 'report'
/// and 'compare' (from a file). Each input has one allowed outcome, and
/// anything else (another exception, a wrong message, a hang) fails with the seed and case that reproduce it.
/// </summary>
public class FuzzTests(ITestOutputHelper output)
{
    private const int Cases = 100_000;
    private const int MaxPayload = 300;

    [Fact]
    public async Task The_length_prefix_decoder_reads_exactly_what_a_reference_decoder_reads_from_any_bytes()
    {
        var random = new Random(17);
        var destination = new byte[MaxPayload];
        int messages = 0;
        for (int n = 0; n < Cases; n++)
        {
            byte[] wire = Wire(random);
            var expected = Reference(wire);
            int chunk = random.Next(1, 9);
            // Blocking and async reads share the buffer logic but not the read calls: alternate them.
            var actual = n % 2 == 0
                ? Decode(new FramedStream(new ChunkedStream(wire, chunk), MaxPayload), destination)
                : await DecodeAsync(new FramedStream(new ChunkedStream(wire, chunk), MaxPayload), destination);
            Assert.True(expected.SequenceEqual(actual),
                $"case {n} (seed 17), read {chunk} B at a time: {Convert.ToHexString(wire)}\nexpected {string.Join(", ", expected)}\nactual   {string.Join(", ", actual)}");
            messages += expected.Count - 1;
        }
        output.WriteLine($"{Cases} byte streams, {messages} messages decoded");
    }

    [Fact]
    public void The_channel_check_accepts_every_channel_header_and_nothing_a_mapping_would_overrun()
    {
        var random = new Random(29);
        var identity = new byte[SharedChannel.IdentitySize];
        int accepted = 0;
        for (int n = 0; n < Cases; n++)
        {
            int capacity = random.Next(4) switch { 0 => random.Next(), 1 => random.Next(1, 8192), 2 => -random.Next(), _ => 1 << random.Next(31) };
            // LAYOUT.md: little-endian magic "IPCBMMF1", version 1, capacity; the file is 4096 + 2 x capacity bytes.
            "IPCBMMF1"u8.CopyTo(identity);
            BinaryPrimitives.WriteInt32LittleEndian(identity.AsSpan(8), 1);
            BinaryPrimitives.WriteInt32LittleEndian(identity.AsSpan(12), capacity);
            bool identityIntact = true;
            if (random.Next(2) == 0)
            {
                int bit = random.Next(8 * identity.Length);
                identity[bit / 8] ^= (byte)(1 << (bit % 8));
                identityIntact = bit / 8 >= 12; // a flipped capacity bit makes another capacity, which may be valid
                capacity = BinaryPrimitives.ReadInt32LittleEndian(identity.AsSpan(12));
            }
            long fileLength = random.Next(2) == 0 ? 4096 + 2L * Math.Max(capacity, 0) + random.Next(-2, 3) : random.NextInt64(0, 1L << 33);
            int expected = identityIntact && capacity > 0 && fileLength >= 4096 + 2L * capacity ? capacity : 0;

            int actual = SharedChannel.CapacityOf(identity, fileLength);

            Assert.True(expected == actual, $"case {n} (seed 29): {Convert.ToHexString(identity)}, file {fileLength} B: expected {expected}, got {actual}");
            Assert.True(actual == 0 || SharedChannel.FileSize(actual) <= fileLength, $"case {n}: a mapping of capacity {actual} overruns {fileLength} B");
            accepted += actual > 0 ? 1 : 0;
        }
        output.WriteLine($"{Cases} channel headers, {accepted} accepted");
        Assert.InRange(accepted, Cases / 10, Cases / 2);
    }

    [Fact]
    public void The_results_reader_returns_a_run_that_every_report_and_compare_can_use_or_says_it_is_malformed()
    {
        var random = new Random(23);
        var baseline = RunFixtures.Bench();
        string valid = ResultsFile.Serialize(baseline);
        int read = 0;
        for (int n = 0; n < Cases; n++)
        {
            string text = Mutate(valid, random);
            RunResults run;
            try
            {
                run = ResultsFile.Parse(text, "fuzz.json");
            }
            catch (ResultsFormatException e)
            {
                Assert.StartsWith("fuzz.json", e.Message);
                continue;
            }
            catch (Exception e)
            {
                Assert.Fail($"case {n} (seed 23): {e.GetType().Name}: {e.Message}\n{text}");
                throw;
            }
            read++;
            // A run the reader accepts must not break any writer later: 'report' and 'compare' both ways.
            try
            {
                _ = SummaryMarkdown.Render(run) + SummaryCsv.Render(run) + EnvironmentMarkdown.Render(run) + HtmlReport.Render(run, ReportWriter.Charts(run));
                CompareBothWays(baseline, run);
            }
            catch (Exception e)
            {
                Assert.Fail($"case {n} (seed 23) was read but not reported: {e.GetType().Name}: {e.Message}\n{e.StackTrace}\n{text}");
            }
        }
        output.WriteLine($"{Cases} mutated results files: {read} read, and each of those reported and compared");
        Assert.InRange(read, Cases / 20, Cases); // the mutations are mild enough that a good share still parses
    }

    /// <summary>The values that break a chart or a table: past a double's range once rounded, denormals, past a long, hostile text.</summary>
    private static readonly string[] ExtremeNumbers =
        ["1.5e308", "1.7976931348623157e308", "1e300", "3.7e9", "5e-324", "2.2250738585072014e-308", "1e-7", "-5e-324", "-1",
         "9223372036854775807", "9.3e18", "2147483648", "1e15", "0", "0.001"];

    private static readonly string[] HostileTexts =
        ["<script>alert(1)</script>", "</code></li><script>alert(1)</script>", "a | b | c", "line\nbreak", "\u0000", "\u001b[31m", "\ud800",
         "javascript:alert(1)", "--- \n# heading", new string('x', 200_000), "", " "];

    [Fact]
    public void Every_number_in_a_results_file_set_to_an_extreme_is_refused_by_its_name_or_reported()
    {
        var (read, refused) = EveryLeaf(JsonValueKind.Number, ExtremeNumbers, value => value);
        output.WriteLine($"{read + refused} files, each one number set to an extreme: {read} read and reported, {refused} refused by the field's name");
        Assert.True(refused > 0 && read > 0);
    }

    [Fact]
    public void Every_text_in_a_results_file_set_to_a_hostile_string_is_refused_by_its_name_or_reported_as_text()
    {
        var (read, refused) = EveryLeaf(JsonValueKind.String, HostileTexts, value => JsonSerializer.Serialize(value));
        output.WriteLine($"{read + refused} files, each one text set to a hostile string: {read} read and reported, {refused} refused by the field's name");
        Assert.True(refused > 0 && read > 0);
    }

    /// <summary>
    /// Sets each leaf of <paramref name="kind"/> in a valid file, one at a time, to each of <paramref name="values"/>: the
    /// reader refuses it naming that leaf's path, or every writer and compare take it, with no markup of the file's making.
    /// </summary>
    private (int Read, int Refused) EveryLeaf(JsonValueKind kind, string[] values, Func<string, string> asJson)
    {
        var baseline = RunFixtures.Bench();
        var root = JsonNode.Parse(ResultsFile.Serialize(baseline))!;
        var leaves = Leaves(root).Where(l => l.GetValueKind() == kind).Select(l => l.GetPath()).ToList();
        Assert.True(leaves.Count > 10, $"{leaves.Count} leaves of kind {kind}");
        int read = 0, refused = 0;
        foreach (string path in leaves)
        {
            foreach (string value in values)
            {
                var copy = JsonNode.Parse(ResultsFile.Serialize(baseline))!;
                var leaf = Leaves(copy).Single(l => l.GetPath() == path);
                leaf.ReplaceWith(JsonNode.Parse(asJson(value)));
                string text = copy.ToJsonString();
                string field = path[2..]; // "$.cases[0].latency_us.p99" -> "cases[0].latency_us.p99"
                RunResults run;
                try
                {
                    run = ResultsFile.Parse(text, "fuzz.json");
                }
                catch (ResultsFormatException e)
                {
                    Assert.True(e.Message.StartsWith("fuzz.json: ", StringComparison.Ordinal) && !e.Message.Contains('\n')
                        && (e.Message.Contains(field, StringComparison.Ordinal) || e.Message.Contains(FieldName(field), StringComparison.Ordinal)),
                        $"{field} = {value}: the refusal does not name the field: {e.Message}");
                    refused++;
                    continue;
                }
                var render = Task.Run(() =>
                {
                    string html = HtmlReport.Render(run, ReportWriter.Charts(run));
                    _ = SummaryMarkdown.Render(run) + SummaryCsv.Render(run) + EnvironmentMarkdown.Render(run);
                    CompareBothWays(baseline, run);
                    return html;
                });
                Assert.True(render.Wait(TimeSpan.FromSeconds(30)), $"{field} = {value}: reporting did not finish within 30 s");
                Assert.DoesNotContain("<script>alert", render.Result);
                read++;
            }
        }
        return (read, refused);
    }

    /// <summary>The last name of a path ("cases[0].latency_us.p99" -> "p99"; "environment.options.x" -> "options[\"x\"]" is named as options).</summary>
    private static string FieldName(string path) => path.Contains(".options.", StringComparison.Ordinal) ? "options" : path[(path.LastIndexOf('.') + 1)..];

    private static IEnumerable<JsonValue> Leaves(JsonNode node) => node switch
    {
        JsonObject o => o.Select(p => p.Value).OfType<JsonNode>().SelectMany(Leaves),
        JsonArray a => a.OfType<JsonNode>().SelectMany(Leaves),
        JsonValue v => [v],
        _ => [],
    };

    private static void CompareBothWays(RunResults baseline, RunResults run)
    {
        foreach (var (a, b) in new[] { (baseline, run), (run, baseline) })
        {
            try
            {
                _ = ComparisonMarkdown.Render(RunComparison.Compare(a, b, threshold: 0.1, allowDifferent: Comparability.RunKeys));
            }
            catch (Exception e) when (e is NotComparableException or IncomparableRunsException)
            {
                // compare's exit 2, with a message
            }
        }
    }

    /// <summary>Well-formed messages (some empty, some at the limit), then often a flaw: a flipped byte, a cut, a huge length, noise.</summary>
    private static byte[] Wire(Random random)
    {
        var wire = new List<byte>();
        var header = new byte[LengthPrefix.HeaderSize];
        int messages = random.Next(0, 5);
        for (int i = 0; i < messages; i++)
        {
            int length = random.Next(4) switch { 0 => 0, 1 => MaxPayload, _ => random.Next(1, MaxPayload) };
            LengthPrefix.Write(header, length);
            wire.AddRange(header);
            var payload = new byte[length];
            random.NextBytes(payload);
            wire.AddRange(payload);
        }
        byte[] bytes = [.. wire];
        switch (random.Next(6))
        {
            case 0 when bytes.Length > 0:
                bytes[random.Next(bytes.Length)] ^= (byte)(1 << random.Next(8));
                break;
            case 1 when bytes.Length > 0:
                bytes = bytes[..random.Next(bytes.Length)];
                break;
            case 2:
                bytes = [.. bytes, .. BitConverter.GetBytes(random.Next()).Reverse(), 1, 2, 3]; // any length, mostly over the limit
                break;
            case 3:
                var noise = new byte[random.Next(1, 64)];
                random.NextBytes(noise);
                bytes = [.. bytes, .. noise];
                break;
        }
        return bytes;
    }

    /// <summary>What docs/wire-format.md says a receiver gets from these bytes: the payload lengths, then how it ends.</summary>
    private static List<string> Reference(byte[] wire)
    {
        var outcome = new List<string>();
        int at = 0;
        while (true)
        {
            if (wire.Length - at < LengthPrefix.HeaderSize)
            {
                outcome.Add(nameof(EndOfStreamException));
                return outcome;
            }
            uint length = BinaryPrimitives.ReadUInt32BigEndian(wire.AsSpan(at));
            if (length > MaxPayload)
            {
                outcome.Add(nameof(FrameTooLargeException));
                return outcome;
            }
            if (wire.Length - at - LengthPrefix.HeaderSize < length)
            {
                outcome.Add(nameof(EndOfStreamException));
                return outcome;
            }
            outcome.Add(Convert.ToHexString(wire, at + LengthPrefix.HeaderSize, (int)length));
            at += LengthPrefix.HeaderSize + (int)length;
        }
    }

    private static List<string> Decode(FramedStream reader, byte[] destination)
    {
        var outcome = new List<string>();
        try
        {
            while (true)
            {
                int length = reader.ReadMessage(destination);
                outcome.Add(Convert.ToHexString(destination, 0, length));
            }
        }
        catch (Exception e) when (e is EndOfStreamException or FrameTooLargeException)
        {
            outcome.Add(e.GetType().Name);
        }
        return outcome;
    }

    private static async Task<List<string>> DecodeAsync(FramedStream reader, byte[] destination)
    {
        var outcome = new List<string>();
        try
        {
            while (true)
            {
                int length = await reader.ReadMessageAsync(destination, default);
                outcome.Add(Convert.ToHexString(destination, 0, length));
            }
        }
        catch (Exception e) when (e is EndOfStreamException or FrameTooLargeException)
        {
            outcome.Add(e.GetType().Name);
        }
        return outcome;
    }

    private static readonly string[] Values =
        ["null", "0", "-1", "-0.0", "1e308", "-1e308", "1.5e308", "5e-324", "9223372036854775807", "4294967296", "2.5", "\"\"", "\"x\"",
         "\"<script>alert(1)</script>\"", "\"\\u0000\"", "[]", "{}", "[null]", "true", "\"NaN\"", "[1e308,-1]", "[1.5e308,5e-324]"];

    /// <summary>A JSON value swapped for an odd one (most inputs still parse), or bytes flipped, cut, repeated.</summary>
    private static string Mutate(string json, Random random)
    {
        var text = new StringBuilder(json);
        for (int edits = random.Next(1, 3); edits > 0; edits--)
        {
            int at = random.Next(text.Length);
            switch (random.Next(8))
            {
                case < 5: // the value after a ':' or in a list
                    int start = IndexOfAny(text, at, ':', '[', ',');
                    if (start < 0)
                    {
                        break;
                    }
                    int end = ValueEnd(text, start + 1);
                    text.Remove(start + 1, end - start - 1).Insert(start + 1, Values[random.Next(Values.Length)]);
                    break;
                case 5:
                    text[at] = (char)random.Next(32, 127);
                    break;
                case 6:
                    text.Remove(at, Math.Min(random.Next(1, 40), text.Length - at));
                    break;
                case 7:
                    int length = Math.Min(random.Next(1, 40), text.Length - at);
                    text.Insert(random.Next(text.Length), text.ToString(at, length));
                    break;
            }
        }
        return text.ToString();
    }

    private static int IndexOfAny(StringBuilder text, int from, params char[] marks)
    {
        for (int i = from; i < text.Length; i++)
        {
            if (Array.IndexOf(marks, text[i]) >= 0)
            {
                return i;
            }
        }
        return -1;
    }

    /// <summary>Where the JSON value starting at <paramref name="from"/> ends (a good guess: the next ',' ']' or '}' outside a string).</summary>
    private static int ValueEnd(StringBuilder text, int from)
    {
        bool inString = false;
        for (int i = from; i < text.Length; i++)
        {
            char c = text[i];
            if (c == '"' && (i == 0 || text[i - 1] != '\\'))
            {
                inString = !inString;
            }
            else if (!inString && c is ',' or ']' or '}')
            {
                return i;
            }
        }
        return text.Length;
    }
}
