/// Every test of `apphost check`, in the order they run and are reported.
public enum CheckCatalogue {
    public static let all: [CheckTest] = [
        LifecycleChecks.launch, LifecycleChecks.background, LifecycleChecks.terminate, ActionChecks.edgeValues,
    ]
}
