// A typedoc plugin: groups the reference by what a user does with each name (Provider API,
// Dealer API, callbacks and receiver, errors, ...) instead of by kind (Classes, Interfaces, ...).
// The group comes from the folder a name is declared in, so the source needs no @group tag on each
// of its 200-odd exports and a new export lands in the right group by itself. A @group tag written
// in a doc comment still wins. Documents (typedoc.config.mjs projectDocuments) are titled by their first
// heading ("Receiving callbacks"), not their path ("docs/webhooks").
import { Comment, CommentTag, Converter, ReflectionKind } from 'typedoc';

/** Folder of src/ (first match wins) → the group its exports are listed under. */
const GROUPS = [
  ['src/provider/', 'Provider API'],
  ['src/dealer/', 'Dealer API'],
  ['src/webhooks/', 'Callbacks and receiver'],
  ['src/errors/', 'Errors'],
  ['src/core/', 'Options, signing and tracking codes'],
  ['src/tools/sandbox/', 'Sandbox'],
  ['src/inboxes/', 'Inboxes'],
  ['src/queues/', 'Queues'],
  ['src/testing/', 'Testing inboxes and queues'],
];

/** @param {import('typedoc').Application} app */
export function load(app) {
  const root = `${process.cwd().replaceAll('\\', '/')}/`;
  app.converter.on(Converter.EVENT_CREATE_DOCUMENT, (_context, document) => {
    const heading = /^# (.+)$/m.exec(document.content.map((part) => part.text).join(''))?.[1];
    if (heading !== undefined) document.name = heading.replaceAll('`', '').trim();
  });
  app.converter.on(
    Converter.EVENT_RESOLVE_BEGIN,
    (context) => {
      const { project } = context;
      for (const reflection of Object.values(project.reflections)) {
        if (!reflection.isDeclaration() || !reflection.parent?.kindOf(ReflectionKind.Module)) continue;
        const file = project.getSymbolIdFromReflection(reflection)?.fileName?.replace(root, '');
        const group = GROUPS.find(([folder]) => file?.startsWith(folder))?.[1];
        if (group === undefined) continue;
        const comment = reflection.comment ?? new Comment();
        if (comment.blockTags.some((tag) => tag.tag === '@group')) continue;
        comment.blockTags.push(new CommentTag('@group', [{ kind: 'text', text: group }]));
        reflection.comment = comment;
      }
    },
    // Before typedoc's own resolve-begin listeners, which may read comments.
    100,
  );
}
