/*
 * What a connected scene shows of itself beyond its content: its title
 * (set_scene_title) and its loading progress (set_loading_progress), each
 * handed to the host while the scene is known connected. Apart from
 * scenes.c because neither keeps any state: each is a check and a report.
 */
#include "scene_parts.h"

static apphost_status_t progress_connected(ahr_scene_request *request, ahr_host_context *context)
{
    ahr_report_send(context, &(ahr_report){.kind = AHR_REPORT_LOADING_PROGRESS,
                                           .loading_progress = {.scene = request->scene,
                                                                .progress = request->progress}});
    return APPHOST_OK;
}

apphost_status_t ahr_scenes_set_loading_progress(const apphost_host_t *host, apphost_scene_t scene, double progress)
{
    /* NaN fails every comparison. */
    bool valid = progress == APPHOST_PROGRESS_NONE || progress == APPHOST_PROGRESS_INDETERMINATE ||
                 (progress >= 0.0 && progress <= 1.0);

    return ahr_scenes_on_connected(host, &(ahr_scene_request){.scene = scene, .progress = progress},
                                   progress_connected, valid ? APPHOST_OK : APPHOST_ERROR_INVALID_ARGUMENT);
}

static apphost_status_t title_connected(ahr_scene_request *request, ahr_host_context *context)
{
    ahr_report_send(context, &(ahr_report){.kind = AHR_REPORT_SCENE_TITLE_CHANGED,
                                           .scene_title_changed = {.scene = request->scene,
                                                                   .text = request->bytes,
                                                                   .text_length = request->length}});
    return APPHOST_OK;
}

/* NULL and "" both take the title away: the host hears an empty one. */
apphost_status_t ahr_scenes_set_scene_title(const apphost_host_t *host, apphost_scene_t scene, const char *title)
{
    ahr_scene_request request;

    if (scene == APPHOST_SCENE_INVALID) {
        return APPHOST_ERROR_INVALID_HANDLE;
    }
    request = (ahr_scene_request){.scene = scene,
                                  .bytes = title != NULL ? title : "",
                                  .length = title != NULL ? ahr_scenes_text_length(title) : 0};
    return ahr_scenes_on_connected(host, &request, title_connected, APPHOST_OK);
}
