import CompanionCLI
import DiaryCLI

await Launcher.launch(SaveCommand.self)
