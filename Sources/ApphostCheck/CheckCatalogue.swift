/// Every test of `apphost check`, in the order they run and are reported.
public enum CheckCatalogue {
    public static let all: [CheckTest] = [
        LifecycleChecks.launch, LifecycleChecks.background, BackgroundChecks.tasks, SceneChecks.stateBeforeBackground,
        LifecycleChecks.terminate,
        ActionChecks.edgeValues, RandomWalk.test,
    ]
}
