import CompanionCLI
import DiaryCLI

await Launcher.launch(NewCommand.self)
