namespace IpcBench.Reporting;

/// <summary>A results file that is missing, unreadable, malformed, or of a schema this version does not read.</summary>
public sealed class ResultsFormatException(string message, Exception? inner = null) : Exception(message, inner);
