using System.Xml.Linq;
using IpcBench.Reporting;
using IpcBench.Reporting.Charts;
using IpcBench.Reporting.Writers;

namespace IpcBench.Tests;

/// <summary>The ranking a report opens with: medians over launches, their intervals, and the groups a run cannot order.</summary>
public class RankingTests
{
    /// <summary>A pooled run's case: six launches, the median round's p50 its own.</summary>
    private static CaseResult Launched(string transport, params double[] launches) =>
        RunFixtures.Case(transport, "io=sync", 1, launches.Order().ElementAt((launches.Length - 1) / 2), 50, 1000, 5, 0) with { LaunchP50sUs = launches };

    private static RunResults Run(params CaseResult[] cases) => RunFixtures.Bench() with { Cases = cases };

    [Fact]
    public void Cases_that_overlap_the_first_of_a_group_share_it_and_one_wholly_above_the_first_starts_the_next()
    {
        var run = Run(
            Launched("udp", 19, 22, 23, 24, 25, 26),   // [19-26]: overlaps tcp's, so joins its group
            Launched("tcp", 10, 11, 12, 13, 14, 20),   // [10-20]: the first
            Launched("redis", 22, 24, 25, 26, 27, 28), // [22-28]: overlaps udp's but lies wholly above tcp's: a group of its own
            Launched("grpc", 30, 31, 32, 33, 34, 35),  // [30-35]: wholly above redis's
            Launched("nats", 12, 12.5, 13, 13.5, 14, 15));

        var ranking = Assert.Single(Ranking.Of(run));

        Assert.Equal(["tcp", "nats", "udp", "redis", "grpc"], ranking.Cases.Select(c => c.Case.Transport));
        Assert.Equal([1, 1, 1, 2, 3], ranking.Cases.Select(c => c.Group));
        Assert.Equal([12, 13, 23, 25, 32], ranking.Cases.Select(c => c.Median)); // the lower middle of six: a launch's own
        Assert.Equal((10, 20), ranking.Cases[0].Interval); // six launches: the least and the most
        string summary = SummaryMarkdown.Render(run);
        Assert.Contains("| 5 | grpc | 32.0 | 30.0 - 35.0 | 6 | 3 |", summary);
        Assert.Contains($"| tcp | 12.0 / ", summary); // the latency table gives the ranking's figure
    }

    [Fact]
    public void One_launch_a_case_is_ranked_without_interval_or_group_and_says_how_to_get_them()
    {
        var run = Run(RunFixtures.Case("tcp", "", 1, 15, 30, 1000, 5, 0), RunFixtures.Case("udp", "", 1, 12, 30, 1000, 5, 0));

        var ranking = Assert.Single(Ranking.Of(run));

        Assert.Equal(["udp", "tcp"], ranking.Cases.Select(c => c.Case.Transport));
        Assert.All(ranking.Cases, c => Assert.Equal((null, 0), (c.Interval, c.Group)));
        string summary = SummaryMarkdown.Render(run);
        Assert.Contains("| rank | transport | p50 us |\n", summary);
        Assert.Contains("ipcbench plan --rounds 6", summary);
    }

    [Fact]
    public void Launches_too_few_for_an_interval_are_ranked_by_their_median_and_say_so()
    {
        var run = Run(Launched("tcp", 15, 14, 16), Launched("udp", 12, 13));

        var ranking = Assert.Single(Ranking.Of(run));

        Assert.Equal([("udp", 12.0), ("tcp", 15.0)], ranking.Cases.Select(c => (c.Case.Transport, c.Median)));
        Assert.All(ranking.Cases, c => Assert.Equal((null, 0), (c.Interval, c.Group)));
        string summary = SummaryMarkdown.Render(run);
        Assert.Contains("| rank | transport | p50 us |\n", summary);
        Assert.Contains("At most 3 process launches a case, too few for an interval (it takes six): p50 is the median launch's.", summary);
        Assert.DoesNotContain("One process launch a case", summary);
    }

    [Fact]
    public void A_ranking_a_placement_has_a_chart_whose_name_stays_a_name_in_the_run_folder()
    {
        // A results.json from elsewhere: a placement that is a path, and one that reads the same once made a name.
        var tcp = Launched("tcp", 10, 11, 12, 13, 14, 20);
        var run = Run(tcp, tcp with { Key = tcp.Key with { Placement = "../../x" } }, tcp with { Key = tcp.Key with { Placement = "......x" } });

        var names = RankingChart.Render(run).Select(c => c.FileName).ToList();

        Assert.Equal(["ranking-1B-same-core.svg", "ranking-1B-______x.svg", "ranking-1B-______x-2.svg"], names);
    }

    [Fact]
    public void The_chart_draws_each_interval_as_a_whisker_at_its_ends()
    {
        var run = Run(Launched("tcp", 10, 11, 12, 13, 14, 20), Launched("grpc", 30, 31, 32, 33, 34, 35));

        var (fileName, svg) = Assert.Single(RankingChart.Render(run));

        Assert.Equal("ranking-1B.svg", fileName);
        var doc = XDocument.Parse(svg);
        XNamespace ns = "http://www.w3.org/2000/svg";
        Assert.Contains(doc.Descendants(ns + "text"), t => t.Value == "grpc (group 2)");
        Assert.Contains(doc.Descendants(ns + "title"), t => t.Value == "tcp: p50 12.0 us over 6 launch(es), 95% interval 10.0-20.0 us");
        // Each bar with an interval: the whisker and a cap at each end, in ink.
        Assert.Equal(6, doc.Descendants(ns + "line").Count(l => (string?)l.Attribute("stroke") == Svg.Ink));
    }
}
