import DiaryCLI
import SyncCLI

await Launcher.launch(SyncCommand.self)
