#include "host_context.h"

void ahr_report_send(const ahr_host_context *context, const ahr_report *report)
{
    if (context->reporter.report != NULL) {
        context->reporter.report(context->reporter.context, report);
    }
}
