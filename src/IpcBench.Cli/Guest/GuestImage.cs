using System.Diagnostics;
using System.Security.Cryptography;
using System.Text;
using IpcBench.Kit.Processes;

namespace IpcBench.Cli.Guest;

/// <summary>
/// The guest docker/vm.sh boots: Debian's kernel and an initramfs holding busybox, docker/vm/init as its /init, the
/// self-contained ipcbench and the libraries they load, and the kernel's virtio-net modules. Made once per recipe (every
/// file's path and content, the kernel's too) and kept in the cache as guest-KEY; half-built as .building-OWNER, named
/// after the vm.sh that builds it, which the next vm.sh sweeps when that one is gone.
/// </summary>
internal sealed partial class GuestImage
{
    private readonly List<(string Path, string Source)> _files = [];
    private readonly List<string> _modules = [];

    public string KernelVersion { get; }

    /// <summary>The folder of the built guest: vmlinuz and initrd.</summary>
    public string Folder { get; private set; } = "";

    public string Kernel => Path.Combine(Folder, "vmlinuz");

    public string Initrd => Path.Combine(Folder, "initrd");

    private GuestImage(string kernelVersion) => KernelVersion = kernelVersion;

    /// <summary>The recipe for a guest of the app in <paramref name="app"/> and <paramref name="init"/> (docker/vm/init).</summary>
    public static async Task<GuestImage> PlanAsync(string app, string init, CancellationToken ct)
    {
        string kernel = NewestKernel() ?? throw new UnsupportedException("no /boot/vmlinuz-* with its /lib/modules (linux-image-amd64)");
        var image = new GuestImage(kernel);
        string busybox = Executable.Find("busybox") ?? throw new UnsupportedException("busybox is missing (apt-get install busybox)");
        image._files.Add(("/init", init));
        image._files.Add(("/bin/busybox", busybox));
        // Libraries .NET loads by name when a transport needs them (TLS, libzmq), where the host has them.
        string[] optional = [.. new[] { "/usr/lib/x86_64-linux-gnu/libssl.so.3", "/usr/lib/x86_64-linux-gnu/libzmq.so.5" }.Where(File.Exists)];
        var libraries = await LibrariesAsync([busybox, Path.Combine(app, "ipcbench"), .. Directory.GetFiles(app, "*.so"), .. optional], ct);
        foreach (string library in libraries.Concat(optional).Where(l => !l.StartsWith(app + "/", StringComparison.Ordinal)).Distinct().Order(StringComparer.Ordinal))
        {
            image._files.Add((library, library));
        }
        foreach (string file in Directory.EnumerateFiles(app, "*", SearchOption.AllDirectories).Order(StringComparer.Ordinal))
        {
            image._files.Add(("/app/" + Path.GetRelativePath(app, file), file));
        }
        // virtio-net and the PCI transport, modules in Debian's kernel, in modprobe's load order; "builtin" ones need nothing.
        foreach (string module in new[] { "virtio_pci", "virtio_net" })
        {
            foreach (string[] words in (await RunAsync(ct, "modprobe", "-S", kernel, "--show-depends", module)).Split('\n').Select(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries)))
            {
                if (words is ["insmod", var path, ..] && !image._modules.Contains(path))
                {
                    image._modules.Add(path);
                }
            }
        }
        if (image._modules.Count == 0 && !(File.Exists($"/boot/config-{kernel}") && File.ReadLines($"/boot/config-{kernel}").Contains("CONFIG_VIRTIO_NET=y")))
        {
            throw new UnsupportedException($"kernel {kernel} has no virtio_net module");
        }
        return image;
    }

    /// <summary>Its folder in <paramref name="cache"/>, built there first when the recipe is new (the guests of other recipes removed).</summary>
    public async Task MakeAsync(string cache, int owner, CancellationToken ct)
    {
        Folder = Path.Combine(cache, "guest-" + Key());
        if (File.Exists(Initrd) && new FileInfo(Initrd).Length > 0)
        {
            return;
        }
        long appBytes = _files.Where(f => f.Path.StartsWith("/app/", StringComparison.Ordinal)).Sum(f => new FileInfo(f.Source).Length);
        Console.WriteLine($"== building the guest: kernel {KernelVersion}, busybox, ipcbench ({appBytes >> 20} MB)");
        string building = Path.Combine(cache, $".building-{owner}"), root = Path.Combine(building, "root"); // on the cache's disk: ~150 MB
        foreach (string dir in new[] { "proc", "sys", "dev", "tmp", "etc/ipcbench" })
        {
            Directory.CreateDirectory(Path.Combine(root, dir));
        }
        foreach (var (path, source) in _files)
        {
            Directory.CreateDirectory(Path.GetDirectoryName(root + path)!);
            File.Copy(source, root + path, overwrite: true); // a link's target, as cp -L
        }
        foreach (string module in _modules) // busybox's insmod takes them uncompressed
        {
            string path = module.EndsWith(".xz", StringComparison.Ordinal) || module.EndsWith(".zst", StringComparison.Ordinal) ? module[..module.LastIndexOf('.')] : module;
            Directory.CreateDirectory(Path.GetDirectoryName(root + path)!);
            string shell = module.EndsWith(".xz", StringComparison.Ordinal) ? "xz -dc \"$1\"" : module.EndsWith(".zst", StringComparison.Ordinal) ? "zstd -qdc \"$1\"" : "cat \"$1\"";
            await RunAsync(ct, "sh", "-c", $"{shell} >\"$2\"", "sh", module, root + path);
            await File.AppendAllTextAsync(Path.Combine(root, "etc/ipcbench/modules"), path + "\n", ct);
        }
        File.Copy($"/boot/vmlinuz-{KernelVersion}", Path.Combine(building, "vmlinuz"), overwrite: true);
        // lz4's legacy format (which the kernel reads) when there is an lz4: it unpacks about as fast as no compression
        // under TCG, and halves what the cache keeps.
        string compress = Executable.Find("lz4") is not null ? "lz4 -q -l -c" : "cat";
        await RunAsync(ct, "sh", "-c", $"cd \"$1\" && find . | busybox cpio -o -H newc -R 0:0 2>/dev/null | {compress} >\"$2\"", "sh", root, Path.Combine(building, "initrd"));
        Directory.Delete(root, recursive: true);
        foreach (string old in Directory.GetDirectories(cache, "guest-*"))
        {
            Directory.Delete(old, recursive: true);
        }
        Directory.Move(building, Folder);
    }

    /// <summary>The recipe's hash: the kernel's version and content, every file's path and content.</summary>
    private string Key()
    {
        var text = new StringBuilder(KernelVersion).Append('\n').Append(Hash($"/boot/vmlinuz-{KernelVersion}")).Append('\n');
        foreach (var (path, source) in _files)
        {
            text.Append(path).Append('\t').Append(Hash(source)).Append('\n');
        }
        foreach (string module in _modules)
        {
            text.Append("module\t").Append(Hash(module)).Append('\n');
        }
        return Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(text.ToString())))[..16];
    }

    private static string Hash(string file)
    {
        using var stream = File.OpenRead(file);
        return Convert.ToHexStringLower(SHA256.HashData(stream));
    }

    /// <summary>The newest /boot/vmlinuz-VERSION that has /lib/modules/VERSION: its VERSION (as sort -V orders them).</summary>
    private static string? NewestKernel() =>
        !Directory.Exists("/boot") ? null
            : Directory.GetFiles("/boot", "vmlinuz-*").Select(k => Path.GetFileName(k)["vmlinuz-".Length..])
                .Where(v => Directory.Exists($"/lib/modules/{v}")).OrderByDescending(VersionKey, Comparer<string>.Create(string.CompareOrdinal)).FirstOrDefault();

    /// <summary>A version's numbers, each padded, so that 6.1.0-56 sorts after 6.1.0-9.</summary>
    internal static string VersionKey(string version) => Numbers().Replace(version, m => m.Value.PadLeft(10, '0'));

    [System.Text.RegularExpressions.GeneratedRegex("[0-9]+")]
    private static partial System.Text.RegularExpressions.Regex Numbers();

    /// <summary>The shared libraries <paramref name="files"/> need, their loader too, as ldd finds them here.</summary>
    private static async Task<IEnumerable<string>> LibrariesAsync(string[] files, CancellationToken ct)
    {
        var info = new ProcessStartInfo("ldd");
        foreach (string file in files)
        {
            info.ArgumentList.Add(file);
        }
        var ldd = await BoundedChild.RunAsync(info, "ldd", TimeSpan.FromMinutes(1), ct); // exits 1 when one is not dynamic: still read
        return ldd.Stdout.Split('\n').Select(l => l.Trim().Split(' ', StringSplitOptions.RemoveEmptyEntries))
            .Select(w => w.Length > 2 && w[1] == "=>" && w[2].StartsWith('/') ? w[2] : w.Length > 0 && w[0].StartsWith('/') && w[0].Contains("ld-linux", StringComparison.Ordinal) ? w[0] : null)
            .OfType<string>().Distinct();
    }

    private static async Task<string> RunAsync(CancellationToken ct, params string[] command)
    {
        var info = new ProcessStartInfo(command[0]);
        foreach (string argument in command[1..])
        {
            info.ArgumentList.Add(argument);
        }
        var ended = await BoundedChild.RunAsync(info, command[0], TimeSpan.FromMinutes(5), ct);
        return ended.ExitCode == 0 ? ended.Stdout : throw new InvalidOperationException($"{string.Join(' ', command.Take(3))} failed (exit {ended.ExitCode}): {ended.LastError}");
    }
}
