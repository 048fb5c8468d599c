import { runAsProcess } from './cli-entry';
import { main } from './main';

runAsProcess(() => main(process.argv.slice(2)));
