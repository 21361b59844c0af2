// A StrykerJS ignorer for `npm run mutate`: leaves unmutated the text of the errors a guard throws
// (`new SomethingError(...)`, `new Error(...)`). Its mutants only change wording, never whether a
// call is allowed, a log verifies or a secret leaks, and they would bury the survivors that matter.
// The decisions around a throw (its condition, the `throw` itself) are still mutated.
import { declareClassPlugin, PluginKind } from '@stryker-mutator/api/plugin';

/** Whether a node is `new X(...)` with X a name ending in `Error`. */
function isErrorConstruction(node) {
  return node.type === 'NewExpression' && node.callee.type === 'Identifier' && /Error$/.test(node.callee.name);
}

class ErrorMessageIgnorer {
  shouldIgnore(path) {
    if (isErrorConstruction(path.node)) return 'the text of a thrown error changes its wording only';
    return undefined;
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Ignore, 'ErrorMessage', ErrorMessageIgnorer)];
