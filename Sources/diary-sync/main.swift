import DiaryKit

await Launcher.launch(SyncCommand.self)
