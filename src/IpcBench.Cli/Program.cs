return await IpcBench.Cli.IpcbenchCommand.RunAsync(args);
