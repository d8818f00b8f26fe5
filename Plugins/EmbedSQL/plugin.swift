import Foundation
import PackagePlugin

/// Embeds a target's `.sql` files in its code at build time, as `EmbeddedSQL.files`: the
/// SQL stays in files people read and edit as SQL, and the installed tools carry it inside
/// them (a resource bundle would be lost once a binary leaves its build folder).
@main struct EmbedSQL: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        guard let module = target.sourceModule else { return [] }
        let inputs = module.sourceFiles(withSuffix: "sql").map(\.url).sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedSQL.swift")
        return [.buildCommand(displayName: "Embedding \(inputs.count) SQL files in \(target.name)",
                              executable: try context.tool(named: "embed-sql").url,
                              arguments: [output.path] + inputs.map(\.path),
                              inputFiles: inputs, outputFiles: [output])]
    }
}
