/**
 * A CDK App for a test file's own synthesis, its cloud assembly in a temporary directory removed
 * by the file's `afterAll(removeTempDirs)`: an App without an outdir writes a cdk.out* directory
 * into os.tmpdir() at each synthesis and leaves it there.
 */
import { App, type AppProps } from 'aws-cdk-lib';
import { tempDir } from '../../support/temp-dirs.ts';

export const tempApp = (props: AppProps = {}) => new App({ ...props, outdir: tempDir('timebill-cdk-') });
